# Shared by integration/up, integration/down, integration/test and
# integration/demo. Sourced, never run. Everything lives under $STATE; the
# only system changes are Debian packages and the local user gofer.

STATE=${GOFER_IT_STATE:-/tmp/gofer-it}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ALL_SERVICES=(ftp gopher news telnet http proxy wais prospero smtp nats ftpmore gemini)

# Addresses: the same facts as integration/itest/itest.go.
FTP_ADDR=127.0.0.21
FTPS_ADDR=127.0.0.22
GOPHERPLUS_ADDR=127.0.0.70
GOPHER_ADDR=127.0.0.71
GOPHERS_ADDR=127.0.0.72
GOPHERS_BACK_ADDR=127.0.0.73
NNTP_ADDR=127.0.0.119
TELNET_ADDR=127.0.0.23
HTTP_ADDR=127.0.0.80
WAIS_ADDR=127.0.0.210
PROSPERO_ADDR=127.0.0.15
SOCKS_ADDR=127.0.0.108
SOCKS_AUTH_ADDR=127.0.0.109
SOCKS_PORT=1080
CONNECT_PROXY_ADDR=127.0.0.88
CONNECT_PROXY_PORT=8888
PROXY_USER=proxyuser
PROXY_PASSWORD=proxy-secret
LOCAL_USER=gofer
LOCAL_PASSWORD=gofer-secret
NEWS_USER=reader
NEWS_PASSWORD=reader-secret
NATS_ADDR=127.0.0.42
NATS_PORT=4222
# ftpmore: more FTP servers, port 21 each, the same tree (lib/ftpmore.sh).
PROFTPD_ADDR=127.0.0.31
PUREFTPD_ADDR=127.0.0.32
BSDFTPD_ADDR=127.0.0.33
PYFTPDLIB_ADDR=127.0.0.34
TWISTEDFTP_ADDR=127.0.0.35
PROFTPD_LIMITED_ADDR=127.0.0.36
PUREFTPD_LIMITED_ADDR=127.0.0.37

say() { printf '%s\n' "gofer-it: $*" >&2; }
die() { say "error: $*"; exit 1; }

require_root() {
	[[ $(id -u) == 0 ]] || die "must run as root (servers bind ports below 1024 and chroot)"
}

# state_dirs creates the fixed layout. Top level, served by FTP and HTTP:
# archive/ big/ scratch/. Private: log/ run/ etc/ srv/ tls/ news/ bin/.
state_dirs() {
	mkdir -p "$STATE"/{log,run,etc,srv,tls,news,bin,big,scratch}
	chmod 755 "$STATE" "$STATE"/{log,run,etc,srv,tls,news,bin,big}
	# Tests create their own served files here (FTP, HTTP).
	chmod 1777 "$STATE/scratch"
}

# pkg_missing prints the packages among its arguments that are not installed.
pkg_missing() {
	local p
	for p in "$@"; do
		if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
			printf '%s\n' "$p"
		fi
	done
}

# pkg_install installs what is missing without letting maintainer scripts
# start daemons (policy-rc.d 101 = action forbidden).
pkg_install() {
	local missing
	mapfile -t missing < <(pkg_missing "$@")
	((${#missing[@]})) || return 0
	say "installing: ${missing[*]}"
	mkdir -p "$STATE/log"
	local had_policy=0
	[[ -e /usr/sbin/policy-rc.d ]] && had_policy=1
	if ((!had_policy)); then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
	fi
	local rc=0
	{
		DEBIAN_FRONTEND=noninteractive dpkg --configure -a &&
			DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
				-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
	} >"$STATE/log/apt.log" 2>&1 || rc=$?
	((had_policy)) || rm -f /usr/sbin/policy-rc.d
	if ((rc)); then
		tail -n 30 "$STATE/log/apt.log" >&2
		die "apt-get failed (full log: $STATE/log/apt.log)"
	fi
}

# ensure_local_user creates the login user that vsftpd and telnetd accept.
ensure_local_user() {
	if ! id "$LOCAL_USER" >/dev/null 2>&1; then
		useradd -m -s /bin/bash "$LOCAL_USER"
	fi
	printf '%s:%s\n' "$LOCAL_USER" "$LOCAL_PASSWORD" | chpasswd
}

# ensure_tls makes one self-signed certificate for every TLS server
# (vsftpd 21 and 990, nginx 443). It is its own CA: tests pass
# $STATE/tls/cert.pem as the CA file.
ensure_tls() {
	local crt=$STATE/tls/cert.pem key=$STATE/tls/key.pem
	[[ -s $crt && -s $key ]] && return 0
	openssl req -x509 -newkey rsa:2048 -nodes -days 3650 \
		-keyout "$key.tmp" -out "$crt.tmp" -subj "/CN=gofer integration" \
		-addext "subjectAltName=IP:$FTP_ADDR,IP:$FTPS_ADDR,IP:$HTTP_ADDR,IP:127.0.0.1,DNS:localhost" \
		>"$STATE/log/openssl.log" 2>&1 || die "openssl failed: $(cat "$STATE/log/openssl.log")"
	chmod 644 "$key.tmp" "$crt.tmp" # a throwaway loopback key; servers drop privileges
	mv "$key.tmp" "$key"
	mv "$crt.tmp" "$crt"
}

# go_tool builds one of integration/cmd/* into $STATE/bin (cached by Go).
go_tool() {
	command -v go >/dev/null || die "go is not installed (gofer needs Go 1.26; https://go.dev/dl/)"
	(cd "$REPO" && go build -o "$STATE/bin/$1" "./integration/cmd/$1") || die "building $1 failed"
}

# ensure_archive writes the sample archive and its manifest, unless the
# present ones came from the same generator source.
ensure_archive() {
	local stamp want
	want=$(sha256sum "$REPO/integration/cmd/genarchive/main.go" | cut -d' ' -f1)
	stamp=$(cat "$STATE/archive.stamp" 2>/dev/null || true)
	if [[ $stamp == "$want" && -d $STATE/archive && -s $STATE/archive.sha256 ]]; then
		return 0
	fi
	go_tool genarchive
	"$STATE/bin/genarchive" -dir "$STATE/archive" -manifest "$STATE/archive.sha256" || die "genarchive failed"
	printf '%s\n' "$want" >"$STATE/archive.stamp"
	say "archive: $(wc -l <"$STATE/archive.sha256") files in $STATE/archive"
}

# put FILE: writes stdin to FILE atomically, and only if it differs, so a
# running server never reads a half-written file.
put() {
	local f=$1 t
	t=$(mktemp "$f.XXXXXX")
	cat >"$t"
	if cmp -s "$t" "$f"; then
		rm -f "$t"
	else
		chmod 644 "$t"
		mv -f "$t" "$f"
	fi
}

# tree_sig DIR: paths, modes, link targets and contents of a tree.
tree_sig() {
	(cd "$1" && find . -printf '%p %m %l\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
}

# sync_tree NEW DEST: replaces DEST with the freshly built NEW unless they
# are the same, so re-running up does not disturb a server serving DEST.
sync_tree() {
	local new=$1 dest=$2
	if [[ -d $dest ]] && [[ $(tree_sig "$new") == "$(tree_sig "$dest")" ]]; then
		rm -rf "$new"
	else
		rm -rf "$dest"
		mv "$new" "$dest"
	fi
}

# alive NAME: the daemon recorded in run/NAME.pid is running.
alive() {
	local pid
	pid=$(cat "$STATE/run/$1.pid" 2>/dev/null) || return 1
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null
}

# fresh_logs NAME FILE...: empties the server's own log files (under log/)
# unless NAME is already running.
fresh_logs() {
	local name=$1 f
	shift
	alive "$name" && return 0
	for f in "$@"; do
		# A new file, not a truncated one: itest.LogSince tells them apart.
		rm -f "$STATE/log/$f"
		: >"$STATE/log/$f"
		chmod 644 "$STATE/log/$f"
	done
}

# start NAME CMD...: runs CMD in its own session (so down can stop the
# whole process group by its id), output to log/NAME.out, pid to run/NAME.pid.
start() {
	local name=$1
	shift
	if alive "$name"; then
		say "$name: already running (pid $(cat "$STATE/run/$name.pid"))"
		return 0
	fi
	# A fresh start begins a fresh log (logs of busy test runs grow large).
	rm -f "$STATE/log/$name.out"
	setsid "$@" </dev/null >"$STATE/log/$name.out" 2>&1 9>&- &
	printf '%s\n' "$!" >"$STATE/run/$name.pid"
}

# wait_port NAME HOST PORT: polls until HOST:PORT accepts a connection,
# failing after 30 s or as soon as the daemon has died.
wait_port() {
	local name=$1 host=$2 port=$3 i
	for ((i = 0; i < 300; i++)); do
		# Dead first: a port answered by some other process (an earlier
		# server whose pid file was lost) must not pass for ours.
		if ! alive "$name"; then
			tail -n 20 "$STATE/log/$name.out" >&2 || true
			die "$name exited instead of listening on $host:$port (log: $STATE/log/$name.out; is another process holding the port?)"
		fi
		if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	die "$name: nothing listening on $host:$port after 30 s (log: $STATE/log/$name.out)"
}

# lock_state serialises up and down: two runs at once (say, two test
# suites) would otherwise both start a server and record the loser's pid.
lock_state() {
	mkdir -p "$STATE/run"
	exec 9>"$STATE/run/lock"
	flock -w 300 9 || die "another integration/up or down holds $STATE/run/lock"
}

# running PID: the process is alive and not a zombie. An ended daemon whose
# parent is gone waits as a zombie until PID 1 reaps it, which in some
# containers takes seconds: it has stopped all the same.
running() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# stop NAME: TERM to the process group, KILL after 10 s.
stop() {
	local name=$1 pidfile=$STATE/run/$1.pid pid i
	pid=$(cat "$pidfile" 2>/dev/null) || return 0
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			running "$pid" || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
		fi
		say "$name: stopped (pid $pid)"
	fi
	rm -f "$pidfile"
}
