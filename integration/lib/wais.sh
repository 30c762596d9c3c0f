# WAIS: no WAIS server is packaged for Debian, so the scripted server of
# schemes/wais/waistest (what freeWAIS-sf 2.2.10 was seen to send and accept)
# serves the database "test" on 127.0.0.210:210. Sourced by integration/up.
# integration/LAYOUT.md lists its documents.

WAIS_PACKAGES=()

up_wais() {
	go_tool waisd
	# The running server runs a copy, so that the next build can replace
	# bin/waisd while it serves.
	alive waisd || cp -f "$STATE/bin/waisd" "$STATE/run/waisd.bin"
	start waisd "$STATE/run/waisd.bin" -listen "$WAIS_ADDR:210" -self "waisd.gofer.test:210"
	wait_port waisd "$WAIS_ADDR" 210
	say "wais: waisd on $WAIS_ADDR:210 (database test)"
}

down_wais() {
	stop waisd
}
