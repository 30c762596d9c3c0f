# Prospero: gofer's scripted Prospero server (integration/cmd/prosperod;
# no Prospero server has a Debian package or builds today) on UDP
# 127.0.0.15:1525. Its catalogue resolves to files on vsftpd and items on
# gophernicus; integration/LAYOUT.md lists it. Sourced by integration/up.

PROSPERO_PACKAGES=()

# wait_log NAME TEXT: polls until log/NAME.out holds TEXT (a UDP server
# cannot be probed like a TCP port), failing after 30 s or if it died.
wait_log() {
	local name=$1 text=$2 i
	for ((i = 0; i < 300; i++)); do
		if ! alive "$name"; then
			tail -n 20 "$STATE/log/$name.out" >&2 || true
			die "$name exited (log: $STATE/log/$name.out)"
		fi
		grep -qF -- "$text" "$STATE/log/$name.out" 2>/dev/null && return 0
		sleep 0.1
	done
	die "$name: not ready after 30 s (log: $STATE/log/$name.out)"
}

up_prospero() {
	if ! alive prosperod; then
		go_tool prosperod
	fi
	start prosperod "$STATE/bin/prosperod" -addr "$PROSPERO_ADDR:1525" -ftp "$FTP_ADDR" -gopher "$GOPHER_ADDR"
	wait_log prosperod "listening on udp $PROSPERO_ADDR:1525"
	say "prospero: scripted server on udp $PROSPERO_ADDR:1525"
}

down_prospero() {
	stop prosperod
}
