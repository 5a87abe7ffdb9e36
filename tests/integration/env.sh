#!/usr/bin/env bash
# env.sh - real processes for the integration tests: a private slapd
# (deploy/slapd-dev.sh) and privd on free loopback ports.
#
#   env.sh start DIR          slapd + privd; writes DIR/ldap_port, DIR/http_port
#   env.sh stop DIR           stop both, remove DIR
#   env.sh slapd-stop DIR     stop slapd only (privd keeps running)
#   env.sh slapd-start DIR    start slapd again, same port and data
#   env.sh privd-restart DIR  restart privd on the same ports
#   env.sh privd-start DIR    start privd again after it was killed
# PRIVD_CONFIG names another configuration (default config/dev.yaml).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cmd=$1
dir=$2
PRIVD_BIN=${PRIVD_BIN:-$top/server/privd}
case $PRIVD_BIN in /*) ;; *) PRIVD_BIN=$top/$PRIVD_BIN ;; esac

port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start_privd() {
	"$PRIVD_BIN" -c "${PRIVD_CONFIG:-$top/config/dev.yaml}" -L "ldap://127.0.0.1:$(cat "$dir/ldap_port")/" \
		-l "127.0.0.1:$(cat "$dir/http_port")" >>"$dir/privd.log" 2>&1 &
	echo $! > "$dir/privd.pid"
	for _ in $(seq 1 200); do
		if curl -sf "http://127.0.0.1:$(cat "$dir/http_port")/readyz" >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$(cat "$dir/privd.pid")" 2>/dev/null || break
		sleep 0.05
	done
	echo "env.sh: privd did not become ready; its log:" >&2
	cat "$dir/privd.log" >&2
	return 1
}

stop_privd() {
	[ -f "$dir/privd.pid" ] || return 0
	pid=$(cat "$dir/privd.pid")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/privd.pid"
}

case $cmd in
start)
	mkdir -p "$dir"
	"$top/deploy/slapd-dev.sh" start "$dir/slapd" > "$dir/ldap_port"
	while :; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
		port_free "$p" && break
	done
	echo "$p" > "$dir/http_port"
	start_privd
	;;
stop)
	stop_privd
	"$top/deploy/slapd-dev.sh" stop "$dir/slapd" || true
	# a sanitizer build reports into privd's log: any report fails the run
	if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$dir/privd.log" 2>/dev/null; then
		echo "env.sh: privd's sanitizers reported:" >&2
		cat "$dir/privd.log" >&2
		rm -rf "$dir"
		exit 1
	fi
	rm -rf "$dir"
	;;
slapd-stop)
	"$top/deploy/slapd-dev.sh" stop "$dir/slapd"
	;;
slapd-start)
	"$top/deploy/slapd-dev.sh" restart "$dir/slapd"
	;;
privd-restart)
	stop_privd
	start_privd
	;;
privd-start)
	start_privd
	;;
*)
	echo "usage: $0 start|stop|slapd-stop|slapd-start|privd-restart DIR" >&2
	exit 2
	;;
esac
