# NATS with JetStream: the server `gofer mirror --cluster` workers share a
# crawl through (a work-queue stream and key-value buckets per job), on
# 127.0.0.42:4222, loopback only, no authentication. JetStream keeps its
# streams under srv/nats, so a restarted server has its jobs back.
# Sourced by integration/up.

NATS_PACKAGES=(nats-server)

up_nats() {
	mkdir -p "$STATE/srv/nats"
	start nats nats-server -a "$NATS_ADDR" -p "$NATS_PORT" -js -sd "$STATE/srv/nats"
	wait_port nats "$NATS_ADDR" "$NATS_PORT"
	say "nats: nats-server with JetStream on $NATS_ADDR:$NATS_PORT (store: $STATE/srv/nats)"
}

down_nats() {
	stop nats
}
