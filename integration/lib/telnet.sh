# inetutils-telnetd behind socat on 127.0.0.23:23 (as inetd would run it),
# logging in local users through /bin/login. Sourced by integration/up.

TELNET_PACKAGES=(inetutils-telnetd socat)

up_telnet() {
	# -h: no host banner before the login prompt.
	start telnetd socat "TCP-LISTEN:23,bind=$TELNET_ADDR,reuseaddr,fork" \
		EXEC:"/usr/sbin/telnetd -h",nofork
	wait_port telnetd "$TELNET_ADDR" 23
	say "telnet: telnetd on $TELNET_ADDR:23 (login $LOCAL_USER)"
}

down_telnet() {
	stop telnetd
}
