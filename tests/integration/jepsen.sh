#!/usr/bin/env bash
# jepsen.sh - the multi-provider guarantee (doc/replication.md) under the
# faults of a machine room, counted by a checker.
#
# Two slapd providers replicating by delta-syncrepl, each in its own
# network namespace, joined by one veth pair (the link a partition cuts);
# a privd in each namespace writing to both, their lists in different
# forms (each names its own provider 127.0.0.1). The test reaches each
# namespace by a second veth from here. Each round: concurrent one-page
# writes of every verb with unique ids through both privd (jepsen.py run:
# page charges against a limit the total exceeds, split charges of money
# over the allowance into the paid wallet, refunds, two refunds of one
# charge at once, holds then commits or releases, credits, top-ups and
# reversals, sessions, vouchers redeemed by two people at once), every
# unanswered or 503 id sent again (same id) through the other privd, and
# one fault at a random moment:
#   kill-provider  SIGKILL of one slapd, restarted 1-2 s later
#   partition      the veth between the providers down for 3 s
#   kill-privd     SIGKILL of one privd, restarted
# After convergence the checker (jepsen.py check) counts, on both
# providers: answered operations not in the ledger (lost), ledger entries
# there twice (double), counters unequal to their ledger, pages or cents
# over a limit, money an account holds beyond what its answers gave it
# (created) or short of it, vouchers paid twice, accounts and vouchers
# where the providers differ, operations never answered; and runs privd
# --check-ledger on each. Every count must be 0. ROUNDS rounds per fault
# (5; `make torture` runs 50).
#
# Then allow mode (ldap.away_allowance AWAY, 5; doc/replication.md): both
# privd restarted with it, AWAY_ROUNDS rounds (2; torture 50) of each of
# AWAY_FAULTS (partition, kill-provider). The checker then allows AWAY of
# each wallet over its limit for each privd, and privd --check-ledger
# --repair with both providers runs before the counts, as the operator does
# after an outage. There, charges lost on both providers (and the money
# they leave an account) are counted and said, not held to 0: a known
# limit of allow mode, doc/replication.md.
#
# Needs root (ip netns); run by `make check`.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVD=${PRIVD_BIN:-server/privd}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
ROUNDS=${ROUNDS:-5}
FAULTS=${FAULTS:-kill-provider partition kill-privd}
LIMIT=${LIMIT:-40}
ACCTS=4			# accounts a round
STEPS=${STEPS:-15}	# operations a worker (two an account) starts
VOUCHERS=3		# vouchers a round, each redeemed by two accounts
. tests/integration/lib.sh

[ "$(id -u)" = 0 ] || { echo "jepsen.sh: needs root for network namespaces" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-jepsen.XXXXXX")
tag=$$
ns=(pj1-$tag pj2-$tag)
# the providers' link, and each namespace's link to here
net=10.$((200 + tag % 50)).$((tag / 50 % 250))
pip=("$net.1" "$net.2")		# providers, on the link a partition cuts
hip=(10.251.$((tag % 250)).2 10.252.$((tag % 250)).2)	# reached from here
results=$dir/results

cleanup() {
	for i in 0 1; do
		[ -f "$dir/privd$i.pid" ] && kill -9 "$(cat "$dir/privd$i.pid")" 2>/dev/null || true
		[ -f "$dir/relay$i.pid" ] && kill "$(cat "$dir/relay$i.pid")" 2>/dev/null || true
		[ -f "$dir/p$i/slapd.pid" ] && kill -9 "$(cat "$dir/p$i/slapd.pid")" 2>/dev/null || true
		ip netns del "${ns[$i]}" 2>/dev/null || true
		ip link del "jh$i-$tag" 2>/dev/null || true
	done
	sleep 0.2
	[ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
# dev.yaml without entitlements: their writes would count among the
# charges' (writes taken by provider); test_entitlements.c covers them
sed 's/, publish: \[groups, attribute\]//' config/dev.yaml > "$dir/dev.yaml"
AWAY=${AWAY:-5}
AWAY_ROUNDS=${AWAY_ROUNDS:-2}
AWAY_FAULTS=${AWAY_FAULTS:-partition kill-provider}
trap "exit 1" INT TERM
fail() {
	echo "jepsen.sh: $*" >&2
	for i in 0 1; do [ -f "$dir/privd$i.log" ] && { echo "--- privd $i" >&2; tail -15 "$dir/privd$i.log" >&2; }; done
	exit 1
}
in_ns() { local i=$1; shift; ip netns exec "${ns[$i]}" "$@"; }

# --- the network: two namespaces, the providers' link, one link each to here
for i in 0 1; do
	ip netns add "${ns[$i]}" || fail "cannot create network namespace ${ns[$i]}"
	in_ns $i ip link set lo up
	ip link add "jh$i-$tag" type veth peer name "jn$i-$tag" || fail "cannot create a veth pair"
	ip link set "jn$i-$tag" netns "${ns[$i]}"
	in_ns $i ip link set "jn$i-$tag" name jn
	ip addr add "10.25$((i + 1)).$((tag % 250)).1/24" dev "jh$i-$tag"
	ip link set "jh$i-$tag" up
	in_ns $i ip addr add "${hip[$i]}/24" dev jn
	in_ns $i ip link set jn up
done
ip link add "jpa-$tag" type veth peer name "jpb-$tag" || fail "cannot create the providers' veth pair"
ip link set "jpa-$tag" netns "${ns[0]}"
ip link set "jpb-$tag" netns "${ns[1]}"
in_ns 0 ip link set "jpa-$tag" name jp
in_ns 1 ip link set "jpb-$tag" name jp
in_ns 0 ip addr add "${pip[0]}/24" dev jp
in_ns 1 ip addr add "${pip[1]}/24" dev jp
in_ns 0 ip link set jp up
in_ns 1 ip link set jp up

# --- two providers: each listens on its loopback, the providers' link and
#     its link to here
start_slapd() {	# I
	local i=$1
	in_ns "$i" /usr/sbin/slapd -f "$dir/p$i/slapd.conf" \
		-h "ldap://127.0.0.1:389/ ldap://${pip[$i]}:389/ ldap://${hip[$i]}:389/" \
		2> "$dir/p$i/slapd.log" || fail "slapd $i did not start"
}
for i in 0 1; do
	ACCESSLOG=1 SERVER_ID=$((i + 1)) PEER=389 PEER_HOST=${pip[$((1 - i))]} PEER_ID=$((2 - i)) \
		deploy/slapd-dev.sh conf "$dir/p$i" > /dev/null
	start_slapd $i
done
L=("ldap://${hip[0]}:389/" "ldap://${hip[1]}:389/")
ldap_up() { ldapsearch -x -H "$1" -D cn=admin,dc=example,dc=edu -w secret -b "$2" -s base 1.1; }
wait_for "provider 1" 100 ldap_up "${L[0]}" ""
ldapadd -x -H "${L[0]}" -D cn=admin,dc=example,dc=edu -w secret -f deploy/base.ldif \
	> "$dir/base.log" 2>&1 || fail "loading base.ldif: $(cat "$dir/base.log")"
wait_for "provider 2 to replicate base.ldif" 200 ldap_up "${L[1]}" ou=privileges,dc=example,dc=edu

# --- a privd in each namespace on its loopback, a relay from its link to
#     here; each names its own provider 127.0.0.1 and lists it first
start_privd() {	# I
	local i=$1
	# ip itself, not the in_ns function: a function in the background is
	# a subshell, and $! its pid, not privd's
	ip netns exec "${ns[$i]}" "$PRIVD" -c "$dir/dev.yaml" -L "ldap://127.0.0.1:389/" \
		-W "ldap://127.0.0.1:389/ ldap://${pip[$((1 - i))]}:389/" -l 127.0.0.1:8080 \
		>> "$dir/privd$i.log" 2>&1 &
	echo $! > "$dir/privd$i.pid"
	disown $!	# its SIGKILLs are the test's, not news for the log
}
up() { curl -sf --max-time 2 "$1/readyz"; }
U=("http://${hip[0]}:8080" "http://${hip[1]}:8080")
for i in 0 1; do
	start_privd $i
	ip netns exec "${ns[$i]}" socat TCP-LISTEN:8080,bind="${hip[$i]}",fork,reuseaddr \
		TCP:127.0.0.1:8080 > /dev/null 2>&1 &
	echo $! > "$dir/relay$i.pid"
done
for i in 0 1; do wait_for "privd $i" 300 up "${U[$i]}"; done

# --- the model: LIMIT pages a term for every account of the rounds
all=$(( $(echo $FAULTS | wc -w) * ROUNDS + $(echo $AWAY_FAULTS | wc -w) * AWAY_ROUNDS ))
{
	echo "reasons: { test: { capped: {} } }"
	echo "organisations: { lab: {} }"
	echo "grants:"
	echo "  \"test/capped@\": { print.pages: $LIMIT, print.balance: 100, login.max_sessions: 3 }"
	echo "accounts:"
	for ((r = 1; r <= all; r++)); do
		for ((a = 1; a <= ACCTS; a++)); do echo "  j${r}x$a: [test/capped@lab]"; done
	done
} > "$dir/model.yaml"
curl -sf -H 'Authorization: Bearer dev-admin-5be71f0a48' --data-binary @"$dir/model.yaml" \
	"${U[0]}/v1/import" > /dev/null || fail "the import of the model failed"
has() { curl -sf -H 'Authorization: Bearer dev-read-4d1c8e27b9' "$1/v1/accounts/j${all}x$ACCTS/privileges"; }
for i in 0 1; do wait_for "the model at privd $i" 300 has "${U[$i]}"; done

# --- the faults
gone() { ! kill -0 "$1" 2>/dev/null; }
kill9() {	# PIDFILE: SIGKILL, and wait until the process is gone (its port free)
	local pid
	pid=$(cat "$1")
	kill -9 "$pid"
	wait_for "process $pid to go" 100 gone "$pid"
}
fault() {	# KIND: waits a random moment, does it, heals it
	local i=$((RANDOM % 2))
	sleep "0.$((2 + RANDOM % 8))"
	case $1 in
	kill-provider)
		kill9 "$dir/p$i/slapd.pid"
		sleep "1.$((RANDOM % 10))"
		start_slapd $i ;;
	partition)
		in_ns 0 ip link set jp down
		sleep 3
		in_ns 0 ip link set jp up
		in_ns 1 ip link set jp up ;;
	kill-privd)
		kill9 "$dir/privd$i.pid"
		sleep "0.$((RANDOM % 10))"
		start_privd $i ;;
	esac
	echo "$1 of $((i + 1))"
}

# both providers hold the same counters and ids for the round's accounts
# (quietly: an entry absent on one side while it converges is not news)
same() {
	local a
	for a in "$@"; do
		[ "$(ldapsearch -x -LLL -o ldif-wrap=no -H "${L[0]}" -D cn=admin,dc=example,dc=edu -w secret \
		    -b "uid=$a,ou=usage,ou=privileges,dc=example,dc=edu" privUsed privHeld privCredit privEntry privRequest privRefund privHold privSession 2>/dev/null |
		    sort | md5sum)" = \
		  "$(ldapsearch -x -LLL -o ldif-wrap=no -H "${L[1]}" -D cn=admin,dc=example,dc=edu -w secret \
		    -b "uid=$a,ou=usage,ou=privileges,dc=example,dc=edu" privUsed privHeld privCredit privEntry privRequest privRefund privHold privSession 2>/dev/null |
		    sort | md5sum)" ] ||
			return 1
	done
}

r=0 bad=0
: > "$results"
mode=default
export SLACK=0
rounds() {	# FAULTS ROUNDS
	local kind k
	for kind in $1; do
		for ((k = 1; k <= $2; k++)); do
			r=$((r + 1))
			accts=$(seq -f "j${r}x%g" 1 $ACCTS | paste -sd,)
			python3 tests/integration/jepsen.py vouchers "$dir/codes" "${U[$((r % 2))]}" $VOUCHERS ||
				fail "round $r: making vouchers failed"
			fault "$kind" > "$dir/fault" &
			fpid=$!
			t0=$(date +%s.%N)
			python3 tests/integration/jepsen.py run "$dir/out" "${U[0]}" "${U[1]}" "r$r" \
				"$accts" $STEPS "$dir/codes" || fail "round $r: the clients failed"
			wait $fpid || fail "round $r: the fault ($kind) failed"
			t1=$(date +%s.%N)
			for i in 0 1; do wait_for "privd $i after the round" 300 up "${U[$i]}"; done
			# convergence: 60 s at most, then the counts say what differs
			for ((w = 0; w < 600; w++)); do same ${accts//,/ } && break; sleep 0.1; done
			if [ "$mode" = allow ]; then
				"$PRIVD" -c config/dev.yaml -W "${L[0]} ${L[1]}" --check-ledger --repair \
					> "$dir/repair.out" 2>&1 || true
				cat "$dir/repair.out" >> "$dir/repairs"
				for ((w = 0; w < 600; w++)); do same ${accts//,/ } && break; sleep 0.1; done
			fi
			counts=$(python3 tests/integration/jepsen.py check "$dir/out" $LIMIT "$dir/codes" \
				"${L[0]}" "${L[1]}" ${accts//,/ }) || fail "round $r: the checker failed"
			cl=0	# providers where --check-ledger finds a fault
			for i in 0 1; do
				"$PRIVD" -c config/dev.yaml -L "${L[$i]}" --check-ledger > "$dir/check$i.out" 2>&1 ||
					{ cl=$((cl + 1)); cat "$dir/check$i.out" >&2; }
			done
			# what mend made the same on a peer (server/mend.c), so far
			mended=$(cat "$dir"/privd?.log | grep -c -e '^.*mend: .*made as home' -e 'mend: .* is absent at' || true)
			# and what --repair merged (allow mode), so far
			merged=$(grep -c ' added at ' "$dir/repairs" 2>/dev/null || true)
			line=$(printf 'round %d %s%s (%.1f s): %s check-ledger %d mended %d merged %d' "$r" \
				"$(cat "$dir/fault")" "$([ $mode = allow ] && echo ", allow mode")" "$(awk "BEGIN { print $t1 - $t0 }")" "$counts" "$cl" "$mended" \
				"${merged:-0}")
			echo "jepsen.sh: $line"
			echo "$line" >> "$results"
			# allow mode: a charge taken while the providers were apart
			# can be lost on both (doc/replication.md, a known limit):
			# lost and created are counted there, not held to 0
			echo "$counts" | MODE=$mode python3 -c 'import json,os,sys; c=json.load(sys.stdin); known=("lost","created") if os.environ["MODE"] == "allow" else (); sys.exit(any(c[k] for k in ("lost","double","counter","diverged","over","created","short","voucher","unanswered") if k not in known))' &&
				[ "$cl" = 0 ] || { bad=$((bad + 1)); [ -z "${KEEP_GOING:-}" ] && fail "round $r: $line"; }
		done
	done
}
rounds "$FAULTS" "$ROUNDS"
if [ "$AWAY_ROUNDS" -gt 0 ]; then
	# allow mode: both privd again, with ldap.away_allowance
	sed -i "s/^ldap:\$/ldap:\n  away_allowance: $AWAY/" "$dir/dev.yaml"
	grep -q "away_allowance: $AWAY" "$dir/dev.yaml" || fail "cannot set away_allowance"
	for i in 0 1; do kill9 "$dir/privd$i.pid"; start_privd $i; done
	for i in 0 1; do wait_for "privd $i in allow mode" 300 up "${U[$i]}"; done
	mode=allow SLACK=$((AWAY * 2))	# two privd
	rounds "$AWAY_FAULTS" "$AWAY_ROUNDS"
fi
[ "$bad" = 0 ] || fail "$bad of $r rounds had faults (see above)"
echo "jepsen.sh: $r rounds ($FAULTS, $ROUNDS each; allow mode: $AWAY_FAULTS, $AWAY_ROUNDS each): lost 0, double 0, counters equal ledgers, providers equal, no overspend, no money created, no voucher paid twice, --check-ledger clean"
[ -z "${RESULTS:-}" ] || cp "$results" "$RESULTS"
