# lib.sh - what bench/run.sh and bench/run1m.sh share: their clean-up, a
# free port, waiting for privd, wrk's rate, a ratio and a verdict against a
# target.

# on exit: the processes in $pids killed, every private slapd under $dir
# stopped, $dir removed
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for c in "$dir"/*/slapd.conf; do
		[ -e "$c" ] && deploy/slapd-dev.sh stop "$(dirname "$c")" 2>/dev/null || true
	done
	rm -rf "$dir"
}
free_port() {
	while :; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}
# wait_ready URL [TRIES]: 20 ms apart (600: 12 s)
wait_ready() {
	for _ in $(seq 1 "${2:-600}"); do curl -sf "$1/readyz" >/dev/null && return 0; sleep 0.02; done
	echo "bench: $1 did not become ready" >&2; exit 1
}
# requests/s of a wrk run of $D seconds (2xx and 3xx only)
wrk_rps() {
	out=$(wrk "$@")
	n=$(echo "$out" | awk '/requests in/ {print $1}')
	bad=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
	echo "$n ${bad:-0} $D" | awk '{printf "%.0f", ($1 - $2) / $3}'
}
ratio() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }'; }
verdict() { echo "$1 $2 $3" | awk '{ if (($3 == "min" && $1 >= $2) || ($3 == "max" && $1 <= $2)) print "pass"; else print "FAIL" }'; }
