#!/usr/bin/env bash
# multi.sh - two slapd providers in multi-provider replication by
# delta-syncrepl (deploy/slapd-dev.sh pair), a privd on each with both
# providers as writers, and a delta-syncrepl consumer with a privd of its
# own. Parallel chargers through both privd against one account, the
# account's home provider stopped mid-stream, and the consumer following
# charges. After convergence both providers must hold the same counter,
# equal to what was accepted and to the ledger, and --check-ledger must
# pass on each. Last, usage entries one provider holds and the other never
# heard of must reach it once a replay sends mend to look.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVD=${PRIVD_BIN:-server/privd}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
. tests/integration/lib.sh

dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-multi.XXXXXX")
cleanup() {
	# the privd pids: start_privd runs in a command substitution, so a file
	for p in $(cat "$dir/pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	for d in "$dir/mp/1" "$dir/mp/2" "$dir/c"; do deploy/slapd-dev.sh stop "$d" 2>/dev/null || true; done
	sleep 0.2
	rm -rf "$dir"
}
trap cleanup EXIT
# dev.yaml without entitlements: their writes would count among the
# charges' (writes taken by provider); test_entitlements.c covers them
sed 's/, publish: \[groups, attribute\]//' config/dev.yaml > "$dir/dev.yaml"
fail() {
	echo "multi.sh: $*" >&2
	for p in ${P1:-} ${P2:-}; do
		echo "--- usage entries on $p" >&2
		ldapsearch -x -LLL -o ldif-wrap=no -H "ldap://127.0.0.1:$p/" -D cn=admin,dc=example,dc=edu \
			-w secret -b ou=usage,ou=privileges,dc=example,dc=edu '(objectClass=privUsage)' \
			privUsed privSegments privArchived privEntry 2>&1 |
			awk '/^dn:/ { if (n) print "  entries", n; n = 0; print } /^privEntry/ { n++; next }
			    /^priv/ { print } END { if (n) print "  entries", n }' >&2
		ldapsearch -x -LLL -H "ldap://127.0.0.1:$p/" -D cn=admin,dc=example,dc=edu -w secret \
			-b ou=usage,ou=privileges,dc=example,dc=edu '(objectClass=privLedgerSegment)' 1.1 |
			grep -c '^dn:' >&2
	done
	for f in "$dir"/privd-*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -8 "$f" >&2; }; done
	# a sanitizer's report anywhere in a log, then the failure again: the
	# end of the output is what a CI summary shows
	grep -h -A3 -E 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' "$dir"/privd-*.log >&2 || true
	[ -n "${PRIVD_KEEP_LOGS:-}" ] && cp "$dir"/privd-*.log "$PRIVD_KEEP_LOGS"/ 2>/dev/null
	echo "multi.sh: $*" >&2
	exit 1
}
A='Authorization: Bearer dev-admin-5be71f0a48'
C='Authorization: Bearer dev-charge-93fa06d2c1'
R='Authorization: Bearer dev-read-4d1c8e27b9'

read -r P1 P2 < <(deploy/slapd-dev.sh pair "$dir/mp") || fail "the provider pair did not start"
PC=$(DELTA=1 deploy/slapd-dev.sh start-consumer "$dir/c" "$P1") || fail "the consumer did not start"
W="ldap://127.0.0.1:$P1/ ldap://127.0.0.1:$P2/"
start_privd() {	# NAME LDAP_PORT: prints the HTTP port
	local hp
	hp=$(free_port)
	"$PRIVD" -c "$dir/dev.yaml" -L "ldap://127.0.0.1:$2/" -W "$W" -l "127.0.0.1:$hp" \
		> "$dir/privd-$1.log" 2>&1 &
	echo "$!" >> "$dir/pids"
	echo "$hp"
}
HA=$(start_privd a "$P1")
HB=$(start_privd b "$P2")
HC=$(start_privd c "$PC")
# d names the same providers in the other order, one by another host name
# and one in another form: homes count in server id order, learned from
# each provider, so the names do not matter
W="ldap://localhost:$P2 LDAP://127.0.0.1:$P1/"
HD=$(start_privd d "$P2")
W="ldap://127.0.0.1:$P1/ ldap://127.0.0.1:$P2/"
for h in $HA $HB $HC $HD; do
	wait_for "privd on $h" 200 curl -sf "http://127.0.0.1:$h/readyz"
done
UA=http://127.0.0.1:$HA UB=http://127.0.0.1:$HB UC=http://127.0.0.1:$HC UD=http://127.0.0.1:$HD

cat > "$dir/model.yaml" <<'EOF'
reasons: { test: { capped: {}, open: {} } }
organisations: { lab: {} }
grants:
  "test/capped@": { print.pages: 300 }
  "test/open@": { print.pages: 1000000 }
accounts:
  racer: [test/capped@lab]
  racer2: [test/capped@lab]
  racer3: [test/capped@lab]
  mover: [test/open@lab]
  watched: [test/open@lab]
EOF
curl -sf -H "$A" --data-binary @"$dir/model.yaml" "$UA/v1/import" > /dev/null || fail "the import failed"
has_racer() { curl -sf -H "$R" "$1/v1/accounts/racer/privileges" > /dev/null; }
for u in $UA $UB $UC $UD; do wait_for "the model at $u" 100 has_racer "$u"; done

used_at() {	# PORT UID: privUsed of the account's print.pages usage entry on that slapd
	ldapsearch -x -LLL -H "ldap://127.0.0.1:$1/" -D cn=admin,dc=example,dc=edu -w secret \
		-b "uid=$2,ou=usage,ou=privileges,dc=example,dc=edu" '(objectClass=privUsage)' privUsed |
		awk '/^privUsed:/ { s += $2 } END { print s + 0 }'
}
converged() { [ "$(used_at "$P1" "$1")" = "$2" ] && [ "$(used_at "$P2" "$1")" = "$2" ]; }
check_ledgers() {
	for p in $P1 $P2; do
		"$PRIVD" -c config/dev.yaml -L "ldap://127.0.0.1:$p/" --check-ledger > "$dir/check.out" 2>&1 ||
			fail "--check-ledger against the provider on $p: $(cat "$dir/check.out")"
	done
}
home_of() {	# UID: the port of the provider privd a sends its writes to
	local before after p
	before=$(curl -sf -H "$R" "$UA/metrics" | grep '^privd_ldap_writes_taken_total')
	curl -sf -H "$C" -d "{\"request_id\":\"probe-$1\",\"amount\":1}" \
		"$UA/v1/accounts/$1/quotas/print.pages/charges" > /dev/null || fail "a probe charge of $1 failed"
	after=$(curl -sf -H "$R" "$UA/metrics" | grep '^privd_ldap_writes_taken_total')
	p=$(diff <(echo "$before") <(echo "$after") | sed -n 's/^> .*127\.0\.0\.1:\([0-9]*\).*/\1/p' | head -1)
	[ -n "$p" ] || fail "no provider took the probe charge of $1"
	echo "$p"
}

# --- 1. 10 chargers through each privd against one capped account
charger() {	# URL NAME N UID: N charges, one line per answer's status
	local i
	for ((i = 0; i < $3; i++)); do
		curl -s -o /dev/null -w "%{http_code} $2-$i\n" -H "$C" \
			-d "{\"request_id\":\"$2-$i\",\"amount\":1}" "$1/v1/accounts/$4/quotas/print.pages/charges"
	done > "$dir/st.$2"
}
count() {	# STATUS FILE...: the chargers' answers with that status
	local code=$1
	shift
	cat "$@" | grep -c "^$code " || true
}
others() {	# FILE...: the answers neither accepted nor refused, with their ids
	cat "$@" | grep -v '^201 \|^409 ' | tr '\n' ' '
}
for i in $(seq 1 10); do
	charger "$UA" "a$i" 20 racer &
	charger "$UB" "b$i" 20 racer &
done
wait
ok=$(count 201 "$dir"/st.a* "$dir"/st.b*)
refused=$(count 409 "$dir"/st.a* "$dir"/st.b*)
[ "$ok" = 300 ] && [ "$refused" = 100 ] ||
	fail "400 charges against a limit of 300 through two privd: $ok accepted, $refused refused;" \
		"other answers: $(others "$dir"/st.a* "$dir"/st.b*)"
wait_for "both providers to hold 300" 100 converged racer 300
for u in $UA $UB; do
	n=$(curl -sf -H "$R" "$u/v1/accounts/racer/quotas/print.pages/ledger?limit=1" | jq .total)
	[ "$n" = 300 ] || fail "the ledger through $u holds $n charges, not 300"
done
check_ledgers
echo "multi.sh: 20 chargers through two privd on two providers: 300 of 400 accepted, both providers hold 300, ledgers balance"
rm -f "$dir"/st.*

# --- 1b. two privd whose lists name the providers in opposite orders (and
# forms) agree on each account's home: the limit holds, with no fault at all
for w in a d; do
	"$PRIVD" -c config/dev.yaml -W "$( [ $w = a ] && echo "ldap://127.0.0.1:$P1/ ldap://127.0.0.1:$P2/" ||
		echo "ldap://localhost:$P2 LDAP://127.0.0.1:$P1/")" --check-config | grep '^write providers' > "$dir/homes.$w"
done
cmp -s "$dir/homes.a" "$dir/homes.d" || fail "the two lists count homes differently: $(cat "$dir"/homes.a "$dir"/homes.d)"
grep -q 'server id 1, server id 2$' "$dir/homes.a" || fail "homes are not counted by server id: $(cat "$dir/homes.a")"
# one provider under two names is two homes to one privd and one to another: refused
! "$PRIVD" -c config/dev.yaml -W "ldap://127.0.0.1:$P1/ ldap://localhost:$P1/" --check-config \
	> "$dir/twice.out" 2>&1 || fail "a list naming one provider twice was accepted"
grep -q "names one provider (server id 1) twice" "$dir/twice.out" ||
	fail "a list naming one provider twice: $(cat "$dir/twice.out")"
for r in racer2 racer3; do
	for i in $(seq 1 10); do
		charger "$UA" "oa$r$i" 20 "$r" &
		charger "$UD" "od$r$i" 20 "$r" &
	done
	wait
	ok=$(count 201 "$dir"/st.oa* "$dir"/st.od*)
	[ "$ok" = 300 ] || fail "400 charges of $r through privd with lists in opposite orders: $ok accepted, not 300;" \
		"other answers: $(others "$dir"/st.oa* "$dir"/st.od*)"
	wait_for "both providers to hold 300 for $r" 100 converged "$r" 300
	rm -f "$dir"/st.*
done
check_ledgers
echo "multi.sh: two privd with their provider lists in opposite orders: 300 of 400 accepted for each of two accounts, both providers agree, ledgers balance"


# --- 2. the home provider stopped mid-stream: writes fail over
home=$(home_of mover)
if [ "$home" = "$P1" ]; then hdir=$dir/mp/1; else hdir=$dir/mp/2; fi
retrying() {	# URL NAME N: each id until it is accepted or replayed ("STATUS ID")
	local i k code
	for ((i = 0; i < $3; i++)); do
		for ((k = 0; k < 120; k++)); do
			code=$(curl -s -o "$dir/body.$2" -w '%{http_code}' --max-time 5 -H "$C" \
				-d "{\"request_id\":\"$2-$i\",\"amount\":1}" \
				"$1/v1/accounts/mover/quotas/print.pages/charges")
			case $code in 201|200) break ;; esac
			sleep 0.1
		done
		echo "$code $2-$i $(head -c 300 "$dir/body.$2" | tr '\n' ' ')"
	done > "$dir/st.$2"
}
for i in $(seq 1 10); do
	retrying "$UA" "fa$i" 30 &
	retrying "$UB" "fb$i" 30 &
done
sleep 1.5
deploy/slapd-dev.sh stop "$hdir"
t_stop=$(date +%s.%N)
sleep 3
deploy/slapd-dev.sh restart "$hdir" || fail "the home provider did not restart"
wait
stuck=$(cat "$dir"/st.* | grep -v '^20[01] ' || true)
if [ -n "$stuck" ]; then
	# each id that never went through, its last answer, and what privd logged of it
	echo "$stuck" >&2
	for id in $(echo "$stuck" | awk '{ print $2 }'); do
		grep -h -- "id=$id[ :]" "$dir"/privd-*.log | grep -v ': ok$' | head -20 >&2
	done
	grep -h -E ' (warn|error|crit)' "$dir"/privd-a.log "$dir"/privd-b.log | tail -30 >&2
	fail "some charges never went through"
fi
landed=$(cat "$dir"/st.f* | wc -l)
want=$((landed + 1))	# and the probe
wait_for "both providers to converge on $want" 300 converged mover "$want"
n=$(curl -sf -H "$R" "$UA/v1/accounts/mover/quotas/print.pages/ledger?limit=1" | jq .total)
[ "$n" = "$want" ] || fail "the ledger holds $n entries, not $want"
check_ledgers
other=$(curl -sf -H "$R" "$UA/metrics" | grep '^privd_ldap_writes_taken_total' | grep -v ":$home/" | awk '{ print $2 }')
[ "${other:-0}" -gt 0 ] || fail "no write went to the other provider while the home one was down"
echo "multi.sh: home provider stopped for 3 s mid-stream: $landed charges, each once, on both providers (none lost, none twice; no limit to overrun here)"

# --- 3. a limit while the home provider goes away: its charges wait (ldap.away_allowance 0)
add_account() {	# UID CELL URL: imported through privd a, seen at URL
	printf 'accounts:\n  %s: [%s]\n' "$1" "$2" > "$dir/add.yaml"
	curl -sf -H "$A" --data-binary @"$dir/add.yaml" "$UA/v1/import" > /dev/null || fail "adding $1 failed"
	wait_for "$1 at $3" 100 curl -sf -o /dev/null -H "$R" "$3/v1/accounts/$1/privileges"
}
add_account capper test/capped@lab "$UB"
home=$(home_of capper)
if [ "$home" = "$P1" ]; then hdir=$dir/mp/1; else hdir=$dir/mp/2; fi
capper() {	# URL NAME N: each id until it is answered (a print system retries a 503)
	local i k code
	for ((i = 0; i < $3; i++)); do
		for ((k = 0; k < 120; k++)); do
			code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "$C" \
				-d "{\"request_id\":\"$2-$i\",\"amount\":1}" \
				"$1/v1/accounts/capper/quotas/print.pages/charges")
			case $code in 201|200|409) break ;; esac
			sleep 0.1
		done
		echo "$code"
	done > "$dir/st.$2"
}
rm -f "$dir"/st.*
for i in $(seq 1 10); do capper "$UA" "ca$i" 25 & capper "$UB" "cb$i" 25 & done
sleep 1
deploy/slapd-dev.sh stop "$hdir"
sleep 2
deploy/slapd-dev.sh restart "$hdir" || fail "the home provider did not restart"
wait
[ "$(cat "$dir"/st.* | grep -cv '^20[01]$\|^409$' || true)" = 0 ] || fail "some capper charges were never answered"
# and home_of's probe charge
accepted=$(( $(cat "$dir"/st.* | grep -c '^20[01]$' || true) + 1 ))
settle() { [ "$(used_at "$P1" capper)" = "$(used_at "$P2" capper)" ] && [ "$(used_at "$P1" capper)" -gt 0 ]; }
wait_for "capper to converge" 300 settle
used=$(used_at "$P1" capper)
[ "$used" = "$accepted" ] || fail "capper: $accepted charges accepted, the providers hold $used"
check_ledgers
[ "$used" -le 300 ] || fail "capper: the home provider went away and $used of a limit of 300 were charged"
echo "multi.sh: a limit of 300 while its home provider restarts: $accepted accepted, no overrun (its charges waited)"

# --- 4. a delta-syncrepl consumer follows charges: its privd shows each.
#     Timed in one process (python3's http.client, kept-alive connections),
#     so the figure is replication's, not the cost of starting curl
python3 - "$HA" "$HC" > "$dir/lag" 2> "$dir/lag.err" <<'PY' || fail "the consumer's privd never showed a charge: $(tail -3 "$dir/lag.err")"
import http.client, json, sys, time
a = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[2]))
charge = {"Authorization": "Bearer dev-charge-93fa06d2c1", "Content-Type": "application/json"}
read = {"Authorization": "Bearer dev-read-4d1c8e27b9"}
for i in range(1, 51):
    a.request("POST", "/v1/accounts/watched/quotas/print.pages/charges",
              json.dumps({"request_id": "w-%d" % i, "amount": 1}), charge)
    r = a.getresponse(); r.read()
    if r.status != 201:
        sys.exit("charge w-%d answered %d" % (i, r.status))
    t0 = time.monotonic()
    while True:
        c.request("GET", "/v1/accounts/watched/quotas/print.pages", headers=read)
        r = c.getresponse(); used = json.loads(r.read())["used"]
        if used >= i:
            break
        if time.monotonic() - t0 > 10:
            sys.exit("charge %d never showed" % i)
        time.sleep(0.0005)
    print(round((time.monotonic() - t0) * 1000, 1))
PY
p99=$(sort -n "$dir/lag" | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; print v[i] }')
p50=$(sort -n "$dir/lag" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
awk -v p="$p99" 'BEGIN { exit !(p <= 100) }' ||
	fail "the consumer shows charges after p99 $p99 ms (p50 $p50), not within 100 ms"
echo "multi.sh: a delta-syncrepl consumer's privd shows each charge after p50 $p50 ms, p99 $p99 ms"

# --- 5. the providers compared (late: it changes a provider behind
# replication's back): agreeing, then one changed behind
# replication's back (slapmodify on its stopped database), named, repaired
BOTH="ldap://127.0.0.1:$P1/ ldap://127.0.0.1:$P2/"
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 ||
	fail "the providers do not agree: $(cat "$dir/cmp.out")"
grep -q "^ok: ldap://127.0.0.1:$P1/ and ldap://127.0.0.1:$P2/ agree" "$dir/cmp.out" || fail "no comparison: $(cat "$dir/cmp.out")"
period=$(curl -sf -H "$R" "$UA/v1/accounts/racer3/quotas/print.pages" | jq -r .period)
deploy/slapd-dev.sh stop "$dir/mp/2"
printf 'dn: cn=print.pages@%s,uid=racer3,ou=usage,ou=privileges,dc=example,dc=edu\nchangetype: modify\nreplace: privUsed\nprivUsed: 301\n' \
	"$period" > "$dir/bump.ldif"
/usr/sbin/slapmodify -f "$dir/mp/2/slapd.conf" -b dc=example,dc=edu -l "$dir/bump.ldif" > "$dir/slapmodify.log" 2>&1 ||
	fail "slapmodify: $(cat "$dir/slapmodify.log")"
deploy/slapd-dev.sh restart "$dir/mp/2" || fail "provider 2 did not restart"
set +e
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "a diverged provider passed the comparison ($rc): $(cat "$dir/cmp.out")"
grep -q "^racer3/print.pages@$period: ldap://127.0.0.1:$P1/ holds privUsed 300, .*; ldap://127.0.0.1:$P2/ holds privUsed 301," "$dir/cmp.out" ||
	fail "the difference was not named: $(cat "$dir/cmp.out")"
# --repair on provider 2 sets its counter back to what its ledger says
"$PRIVD" -c config/dev.yaml -W "ldap://127.0.0.1:$P2/" --check-ledger --repair > "$dir/repair.out" 2>&1 ||
	fail "--repair on provider 2 failed: $(cat "$dir/repair.out")"
grep -q "^racer3/print.pages@$period: repaired: privUsed 301 -> 300" "$dir/repair.out" || fail "no repair said: $(cat "$dir/repair.out")"
wait_for "both providers to hold 300 for racer3 again" 100 converged racer3 300
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 ||
	fail "the providers do not agree after the repair: $(cat "$dir/cmp.out")"
echo "multi.sh: --check-ledger compares the providers: agreeing, then a counter changed on one named, repaired, agreeing"

# changes a provider's copy behind replication's back: stopped, slapmodify, started
behind() {	# PDIR LDIF
	deploy/slapd-dev.sh stop "$1"
	/usr/sbin/slapmodify -f "$1/slapd.conf" -b dc=example,dc=edu -l "$2" > "$dir/slapmodify.log" 2>&1 ||
		fail "slapmodify of $2: $(cat "$dir/slapmodify.log")"
	deploy/slapd-dev.sh restart "$1" || fail "the provider in $1 did not restart"
}

# sets peer and pdir: the provider that is not HOME, and its directory
peer_of() {	# HOME
	if [ "$1" = "$P1" ]; then peer=$P2 pdir=$dir/mp/2; else peer=$P1 pdir=$dir/mp/1; fi
}
# the ledger entry of usage entry DN at the peer that holds TEXT
peer_entry() {	# DN TEXT
	ldapsearch -x -LLL -o ldif-wrap=no -H "ldap://127.0.0.1:$peer/" -D cn=admin,dc=example,dc=edu \
		-w secret -b "$1" -s base privEntry | sed -n 's/^privEntry: //p' | grep -F "$2"
}

# --- 6. an entry its home provider added and never logged (a SIGKILL
# between commit and accesslog): its peer never hears of it, and the
# modifies that follow fail there. Made here by deleting the account's
# usage entries at the peer behind replication's back; the replay of the
# charge that made them sends mend (server/mend.c) to find the peer without
# them, and the peer must hold them again
add_account unlogged test/open@lab "$UA"
home=$(home_of unlogged)
peer_of "$home"
wait_for "both providers to hold unlogged's probe charge" 100 converged unlogged 1
udn="uid=unlogged,ou=usage,ou=privileges,dc=example,dc=edu"
printf 'dn: cn=print.pages@%s,%s\nchangetype: delete\n\ndn: %s\nchangetype: delete\n' \
	"$period" "$udn" "$udn" > "$dir/gone.ldif"
behind "$pdir" "$dir/gone.ldif"
absent() { ! ldapsearch -x -H "ldap://127.0.0.1:$peer/" -D cn=admin,dc=example,dc=edu -w secret \
	-b "$udn" -s base 1.1 > /dev/null 2>&1; }
absent || fail "the peer still holds unlogged's usage entries"
# the print system asks again for the charge it sent: a replay, answered
# from the home provider's ledger
code=$(curl -s -o "$dir/replay.json" -w '%{http_code}' -H "$C" \
	-d '{"request_id":"probe-unlogged","amount":1}' "$UA/v1/accounts/unlogged/quotas/print.pages/charges")
[ "$code" = 200 ] || fail "the replay of unlogged's charge answered $code: $(cat "$dir/replay.json")"
wait_for "the peer to hold unlogged's usage entries again" 600 converged unlogged 1
grep -q "mend: cn=print.pages@$period,$udn is absent at" "$dir/privd-a.log" ||
	fail "mend did not say what it found: $(grep mend "$dir/privd-a.log" | tail -3)"
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 ||
	fail "the providers do not agree after the mend: $(cat "$dir/cmp.out")"
echo "multi.sh: usage entries its home provider holds and its peer never heard of: found on a replay, sent again whole"

# --- 7. a refund its home provider committed and never logged: the peer
# keeps the charge whole. Made here by taking the refund back out of the
# peer's copy behind replication's back (its ledger entry, request id and
# refund state, and the counter as it was); the print system's retry of the
# refund is a replay at home, which sends mend to copy what the peer lacks
add_account refunded test/open@lab "$UA"
home=$(home_of refunded)
peer_of "$home"
curl -sf -H "$C" -d '{"request_id":"r-charge","amount":5}' \
	"$UA/v1/accounts/refunded/quotas/print.pages/charges" > /dev/null || fail "refunded's charge failed"
curl -sf -H "$C" -d '{"request_id":"r-refund","charge_id":"r-charge","amount":2}' \
	"$UA/v1/accounts/refunded/quotas/print.pages/refunds" > /dev/null || fail "refunded's refund failed"
wait_for "both providers to hold refunded's refund" 100 converged refunded 4
rdn="cn=print.pages@$period,uid=refunded,ou=usage,ou=privileges,dc=example,dc=edu"
entry=$(peer_entry "$rdn" '"kind":"refund"')
[ -n "$entry" ] || fail "the peer holds no refund entry to take out"
printf 'dn: %s\nchangetype: modify\ndelete: privEntry\nprivEntry: %s\n-\ndelete: privRequest\nprivRequest: r-refund\n-\ndelete: privRefund\nprivRefund: r-charge 2\n-\nreplace: privUsed\nprivUsed: 6\n' \
	"$rdn" "$entry" > "$dir/unrefund.ldif"
behind "$pdir" "$dir/unrefund.ldif"
[ "$(used_at "$peer" refunded)" = 6 ] || fail "the peer does not hold the charge whole"
code=$(curl -s -o "$dir/replay.json" -w '%{http_code}' -H "$C" \
	-d '{"request_id":"r-refund","charge_id":"r-charge","amount":2}' \
	"$UA/v1/accounts/refunded/quotas/print.pages/refunds")
[ "$code" = 200 ] || fail "the replay of the refund answered $code: $(cat "$dir/replay.json")"
wait_for "the peer to hold the refund again" 600 converged refunded 4
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 ||
	fail "the providers do not agree after the mend of a refund: $(cat "$dir/cmp.out")"
check_ledgers
echo "multi.sh: a refund its home provider holds and its peer lacks: found on a replay, copied with its state"

# --- 8. a refund whose answer never came, and no retry: privd e loses the
# answer of its first write of the account's entries (PRIVD_FAULT, as a
# provider SIGKILLed before answering), and the refund is again taken out
# of the peer's copy behind replication's back (as never logged). Nobody
# sends it again: mend looks by itself, and the peer must hold it again
add_account unanswered test/open@lab "$UA"
# privd a's connection to the provider part 7 restarted fails once: the
# first charge, sent until it lands
wait_for "a first charge of unanswered" 100 curl -sf -o /dev/null -H "$C" \
	-d '{"request_id":"u-first","amount":1}' "$UA/v1/accounts/unanswered/quotas/print.pages/charges"
home=$(home_of unanswered)
peer_of "$home"
HE=$(PRIVD_FAULT=answer:lose=uid=unanswered, start_privd e "$home")
UE=http://127.0.0.1:$HE
wait_for "privd e" 200 curl -sf "$UE/readyz"
curl -sf -H "$C" -d '{"request_id":"u-charge","amount":5}' \
	"$UA/v1/accounts/unanswered/quotas/print.pages/charges" > /dev/null || fail "unanswered's charge failed"
code=$(curl -s -o "$dir/lost.json" -w '%{http_code}' -H "$C" \
	-d '{"request_id":"u-refund","charge_id":"u-charge","amount":2}' \
	"$UE/v1/accounts/unanswered/quotas/print.pages/refunds")
[ "$code" = 503 ] || fail "the refund whose answer was lost answered $code: $(cat "$dir/lost.json")"
wait_for "both providers to hold unanswered's refund" 100 converged unanswered 5
rdn="cn=print.pages@$period,uid=unanswered,ou=usage,ou=privileges,dc=example,dc=edu"
entry=$(peer_entry "$rdn" '"kind":"refund"')
[ -n "$entry" ] || fail "the peer holds no refund entry of unanswered to take out"
printf 'dn: %s\nchangetype: modify\ndelete: privEntry\nprivEntry: %s\n-\ndelete: privRequest\nprivRequest: u-refund\n-\ndelete: privRefund\nprivRefund: u-charge 2\n-\nreplace: privUsed\nprivUsed: 7\n' \
	"$rdn" "$entry" > "$dir/unrefund.ldif"
behind "$pdir" "$dir/unrefund.ldif"
# mend looks a second time 15 s after the lost answer
wait_for "the peer to hold the refund whose answer was lost again" 400 converged unanswered 5
grep -q "mend: $rdn at .* lacked 3 values" "$dir/privd-e.log" ||
	fail "mend did not say what it copied: $(grep mend "$dir/privd-e.log" | tail -3)"
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 ||
	fail "the providers do not agree after the mend of an unanswered refund: $(cat "$dir/cmp.out")"
check_ledgers
echo "multi.sh: a refund whose answer was lost, never sent again: mend found it by itself and copied it"

# --- 9. after an outage in allow mode a provider can lack ledger entries
# its peer holds (delta-syncrepl kept the newer of two modifies): made here
# by taking a charge out of the peer's copy behind replication's back.
# --check-ledger over both names the difference; --repair adds the entry
# where it lacks (merge.c), sets the counter, and then both agree
add_account merged test/open@lab "$UA"
wait_for "a first charge of merged" 100 curl -sf -o /dev/null -H "$C" \
	-d '{"request_id":"m-first","amount":1}' "$UA/v1/accounts/merged/quotas/print.pages/charges"
home=$(home_of merged)
peer_of "$home"
curl -sf -o /dev/null -H "$C" -d '{"request_id":"m-two","amount":3}' \
	"$UA/v1/accounts/merged/quotas/print.pages/charges" || fail "merged's charge failed"
wait_for "both providers to hold merged's charges" 100 converged merged 5
mdn="cn=print.pages@$period,uid=merged,ou=usage,ou=privileges,dc=example,dc=edu"
entry=$(peer_entry "$mdn" '"id":"m-two"')
[ -n "$entry" ] || fail "the peer holds no entry of m-two to take out"
printf 'dn: %s\nchangetype: modify\ndelete: privEntry\nprivEntry: %s\n-\ndelete: privRequest\nprivRequest: m-two\n-\nreplace: privUsed\nprivUsed: 2\n' \
	"$mdn" "$entry" > "$dir/unmerge.ldif"
behind "$pdir" "$dir/unmerge.ldif"
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 &&
	fail "--check-ledger did not see the entry the peer lacks: $(cat "$dir/cmp.out")"
grep -q "^merged/print.pages@$period: .*not on\|^merged/print.pages@$period: .* holds " "$dir/cmp.out" ||
	fail "--check-ledger did not name merged's entry: $(cat "$dir/cmp.out")"
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger --repair > "$dir/repair.out" 2>&1 ||
	fail "--repair over both providers failed: $(cat "$dir/repair.out")"
grep -q "^$mdn: 1 ledger entries and 1 request ids of ldap://127.0.0.1:$home/ added at ldap://127.0.0.1:$peer/" "$dir/repair.out" ||
	fail "--repair did not say what it merged: $(cat "$dir/repair.out")"
wait_for "both providers to hold merged's charges again" 100 converged merged 5
"$PRIVD" -c config/dev.yaml -W "$BOTH" --check-ledger > "$dir/cmp.out" 2>&1 ||
	fail "the providers do not agree after --repair: $(cat "$dir/cmp.out")"
check_ledgers
echo "multi.sh: a charge one provider lacks: named by --check-ledger, merged and repaired by --repair over both"
