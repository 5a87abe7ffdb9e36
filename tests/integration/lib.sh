# lib.sh - shell helpers of the integration scripts (sourced): ports and waiting.
# The script defines fail() before it waits.

free_port() {
	local p
	while :; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

not() { ! "$@"; }

# wait_for WHAT TENTHS CMD...: until CMD succeeds, TENTHS tenths of a second at most
wait_for() {
	local what=$1 n=$2 i
	shift 2
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "gave up waiting for $what"
}
