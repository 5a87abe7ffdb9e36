#!/usr/bin/env bash
# run.sh - make bench: privd measured side by side with its ceiling and its
# alternatives in one run, on private slapd instances; prints one table.
# Ratios are what count on a small, noisy machine; absolute numbers are context.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. bench/lib.sh
B=${B:-build/release}
D=${BENCH_TIME:-5}
dir=$(mktemp -d /tmp/privd-bench.XXXXXX)
R=dev-read-4d1c8e27b9 C=dev-charge-93fa06d2c1 A=dev-admin-5be71f0a48 T=dev-topup-7e3b9c1f05
pids=""
trap cleanup EXIT INT TERM
# the rows before the entitlements' own measure privd without publishing:
# its writes would share slapd with what they measure
sed 's/, publish: \[groups, attribute\]//' config/dev.yaml > "$dir/nopub.yaml"

start_privd() {	# LDAP_PORT HTTP_PORT LOG
	"$B/../../server/privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$1/" -l "127.0.0.1:$2" \
		> "$3" 2>&1 &
	pids="$pids $!"
	echo $!
}

for f in ceiling ldapread charge chargefloor propagate latency gen population busy entwrite; do
	cc -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -o "$dir/$f" "bench/$f.c" \
		-lmicrohttpd -lldap -llber -lcurl -lpthread
done
privd=server/privd
[ -x "$privd" ] || { echo "bench: build privd first (make)" >&2; exit 1; }

# --- the small directory: the demo-sized model plus bench accounts
lp=$(deploy/slapd-dev.sh start "$dir/small")
hp=$(free_port)
pid=$("$top/$privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$lp/" -l "127.0.0.1:$hp" \
	> "$dir/privd.log" 2>&1 & echo $!)
pids="$pids $pid"
U=http://127.0.0.1:$hp
wait_ready "$U"
{
	printf 'reasons: { bench: { load: {}, read: {}, paid: {} }, prop: { a: {}, b: {}, c: {} } }\n'
	printf 'organisations: { lab: { cse: {} } }\n'
	printf 'grants:\n  "bench/load@": { print.pages: 1000000000, print.balance: 1000000000 }\n'
	printf '  "bench@lab": { printer.access: [+lab-laser, +wrapped, +priced], print.colour: true }\n'
	printf '  "bench/read@lab/cse": { print.pages: 300, login.hosts: [+cse-lab] }\n'
	printf '  "prop/a@": { print.pages: 1 }\n  "prop/b@": { print.pages: 7 }\n'
	printf '  "prop/c@": { print.pages: 9 }\n  "bench/paid@": { print.pages: 0 }\n'
	printf 'printers:\n  priced: { charge: print.balance, price: { mono: 10, colour: 40 } }\n'
	printf 'accounts:\n  reader: [bench/read@lab/cse, bench/load@lab]\n  prop: [prop/a@]\n'
	for i in $(seq 0 99); do printf '  bench%03d: [bench/load@]\n' "$i"; done
	for i in 1 2 3 4 5 6 7; do printf '  busy%d: [bench/load@]\n' "$i"; done
	for i in 1 2 3; do printf '  wallet%d: [bench/paid@]\n' "$i"; done
	for i in 1 2; do printf '  cpu%d: [bench/load@]\n' "$i"; done
} > "$dir/model.yaml"
curl -sf -H "Authorization: Bearer $A" --data-binary @"$dir/model.yaml" "$U/v1/import" > /dev/null
path=/v1/accounts/reader/privileges
size=$(curl -s -H "Authorization: Bearer $R" "$U$path" | wc -c)

median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
# 1. reads against the ceiling, same size, same threads, same load;
#    interleaved, medians of three: one pair alone gave 0.72 where five
#    interleaved pairs on the same machine gave 0.91
cp=$(free_port)
"$dir/ceiling" "$cp" "$size" 2 & pids="$pids $!"
sleep 0.3
cs=() rs=()
for _ in 1 2 3; do
	cs+=("$(wrk_rps -t2 -c64 -d"${D}s" "http://127.0.0.1:$cp$path")")
	rs+=("$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "$U$path")")
done
ceil=$(median "${cs[@]}")
reads=$(median "${rs[@]}")
# 2. the same answer from LDAP per request, 8 at a time
ldapr=$("$dir/ldapread" "ldap://127.0.0.1:$lp/" cn=privd,dc=example,dc=edu privd-dev-secret \
	ou=people,dc=example,dc=edu ou=cells,ou=privileges,dc=example,dc=edu reader "$D" 8 each)
ldapor=$("$dir/ldapread" "ldap://127.0.0.1:$lp/" cn=privd,dc=example,dc=edu privd-dev-secret \
	ou=people,dc=example,dc=edu ou=cells,ou=privileges,dc=example,dc=edu reader "$D" 8 or)
# 3. charges through privd against raw slapd doing the same modify, 8 at a time
charges=$(KEY=$C wrk_rps -t2 -c8 -d"${D}s" -s bench/charge.lua "$U")
raw=$("$dir/charge" "ldap://127.0.0.1:$lp/" cn=privd,dc=example,dc=edu privd-dev-secret \
	ou=usage,ou=privileges,dc=example,dc=edu 100 "$D" 8)
# 4. propagation of 200 grant changes and 200 membership changes
read -r pg50 pg99 < <("$dir/propagate" grant "ldap://127.0.0.1:$lp/" cn=admin,dc=example,dc=edu \
	secret ou=privileges,dc=example,dc=edu ou=people,dc=example,dc=edu "$U" "$R" 200)
read -r pm50 pm99 < <("$dir/propagate" membership "ldap://127.0.0.1:$lp/" cn=admin,dc=example,dc=edu \
	secret ou=privileges,dc=example,dc=edu ou=people,dc=example,dc=edu "$U" "$R" 200)
# 5. latency at a quarter and half of the measured peak, open loop; the
#    driver reports the rate it achieved and its own lag, so a row where the
#    generator fell behind says so instead of blaming privd
quarter=$((reads / 4))
half=$((reads / 2))
read -r q50 q99 q999 qrate qlag < <("$dir/latency" "$hp" "$path" "$R" "$quarter" "$D" 64)
read -r l50 l99 l999 lrate llag < <("$dir/latency" "$hp" "$path" "$R" "$half" "$D" 64)

# 5b. one busy account (the hard case: a copier, a kiosk, a shared budget).
#     Charges into busy1 after 50,000 charges against fresh accounts' first
#     1,000, interleaved so the machine's drift hits both; medians of three.
#     And the usage stream's bytes per charge at 50,000 against at 10.
metric() { curl -s -H "Authorization: Bearer $R" "$U/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
busy() { "$dir/busy" "$U" "$C" "$@" | cut -d' ' -f1; }
"$dir/busy" "$U" "$C" busy4 0 10 1 > /dev/null
sleep 0.5
b0=$(metric privd_sync_usage_bytes_total)
"$dir/busy" "$U" "$C" busy4 10 200 1 > /dev/null
sleep 0.5
b1=$(metric privd_sync_usage_bytes_total)
f1=$(busy busy1 0 1000 4)
fill=$(busy busy1 1000 49000 8)
d1=$(busy busy1 50000 1000 4); f2=$(busy busy2 0 1000 4)
d2=$(busy busy1 51000 1000 4); f3=$(busy busy3 0 1000 4)
d3=$(busy busy1 52000 1000 4)
first=$(median "$f1" "$f2" "$f3")
deep=$(median "$d1" "$d2" "$d3")
sleep 0.5
b2=$(metric privd_sync_usage_bytes_total)
"$dir/busy" "$U" "$C" busy1 53000 200 1 > /dev/null
sleep 0.5
b3=$(metric privd_sync_usage_bytes_total)
bytes10=$(( (b1 - b0) / 200 ))
bytes50k=$(( (b3 - b2) / 200 ))

# 5c. charges on the paid wallet (the allowance spent: each charge is the
#     allowance's record of the split, then the paid part) against charges on
#     an allowance, one account each, interleaved; medians of three
for i in 1 2 3; do
	curl -sf -H "Authorization: Bearer $T" -d '{"request_id":"bench","amount":1000000000}' \
		"$U/v1/accounts/wallet$i/quotas/print.pages/topups" > /dev/null
done
w1=$(busy wallet1 0 1000 4); a1=$(busy busy5 0 1000 4)
w2=$(busy wallet2 0 1000 4); a2=$(busy busy6 0 1000 4)
w3=$(busy wallet3 0 1000 4); a3=$(busy busy7 0 1000 4)
paidc=$(median "$w1" "$w2" "$w3")
allowc=$(median "$a1" "$a2" "$a3")

# 5d. CPU per charge against CPU per read: privd's and slapd's user + system
#     time (/proc/PID/stat) over 20,000 charges into one account, two at a
#     time (two print servers), and over D seconds of reads. Then reads alone
#     against reads while two clients charge another account, interleaved,
#     medians of three.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick=$(getconf CLK_TCK)
spid=$(cat "$dir/small/slapd.pid")
served() { metric 'privd_http_requests_total{route="privileges",status="200"}'; }
p0=$(cpu "$pid"); s0=$(cpu "$spid")
"$dir/busy" "$U" "$C" cpu1 0 20000 2 > /dev/null
p1=$(cpu "$pid"); s1=$(cpu "$spid")
n0=$(served)
wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "$U$path" > /dev/null
n1=$(served)
p2=$(cpu "$pid")
us_charge=$(echo "$p1 $p0 $tick" | awk '{ printf "%.0f", ($1 - $2) * 1e6 / $3 / 20000 }')
us_slapd=$(echo "$s1 $s0 $tick" | awk '{ printf "%.0f", ($1 - $2) * 1e6 / $3 / 20000 }')
us_read=$(echo "$p2 $p1 $tick $n1 $n0" | awk '{ printf "%.1f", ($1 - $2) * 1e6 / $3 / ($4 - $5) }')
cpu_reads=$(ratio "$us_charge" "$us_read")
#     The floor under it: chargefloor (one thread, one event loop, the same
#     modify, post-read and usage stream, nothing else) over the same
#     20,000 charges two at a time, on the same slapd.
fp=$(free_port)
"$dir/chargefloor" "$fp" "ldap://127.0.0.1:$lp/" cn=privd,dc=example,dc=edu privd-dev-secret \
	ou=usage,ou=privileges,dc=example,dc=edu & fpid=$!; pids="$pids $fpid"
for _ in $(seq 1 250); do curl -sf -X POST "http://127.0.0.1:$fp/" > /dev/null && break; sleep 0.02; done
"$dir/busy" "http://127.0.0.1:$fp" - floor1 0 1000 2 > /dev/null
f0=$(cpu "$fpid")
read -r _ fbad < <("$dir/busy" "http://127.0.0.1:$fp" - floor1 1000 20000 2)
f1=$(cpu "$fpid")
kill "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null || true
us_floor=$(echo "$f1 $f0 $tick" | awk '{ printf "%.0f", ($1 - $2) * 1e6 / $3 / 20000 }')
floor_reads=$(ratio "$us_floor" "$us_read")
r12=$(ratio "$us_charge" "$us_floor")
ra=() rb=()
for k in 1 2 3; do
	ra+=("$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "$U$path")")
	"$dir/busy" "$U" "$C" cpu2 $((k * 10000000)) 10000000 2 > /dev/null & chg=$!
	sleep 0.3
	rb+=("$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "$U$path")")
	kill "$chg" 2>/dev/null; wait "$chg" 2>/dev/null || true
done
alone=$(median "${ra[@]}")
charging=$(median "${rb[@]}")

# 6. imports, entry by entry under a record: 20k accounts through the API
#    while privd serves; 100k through privd --import into an empty directory
"$dir/population" 20000 > "$dir/pop20k.yaml"
t0=$(date +%s.%N)
curl -sf --max-time 600 -H "Authorization: Bearer $A" --data-binary @"$dir/pop20k.yaml" \
	"$U/v1/import" > /dev/null
imp20=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
"$dir/population" 100000 > "$dir/pop100k.yaml"
ip=$(deploy/slapd-dev.sh start "$dir/imp")
t0=$(date +%s.%N)
"$top/$privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$ip/" --import "$dir/pop100k.yaml" \
	> "$dir/import100k.log" 2>&1
imp100=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
deploy/slapd-dev.sh stop "$dir/imp"

# 7. print jobs through cupsd to ippeveprinter, wrapped in privd-cups or not
if [ "$(id -u)" = 0 ]; then
	read -r cw cd < <(bench/cups.sh "$U" "$C" reader client/cups/privd-cups 20)
	r5=$(ratio "$cw" "$cd")
	# a priced colour queue: every page classified, the job priced by privd
	read -r kw kd < <(bench/cups.sh "$U" "$C" reader client/cups/privd-cups 20 colour)
	r8=$(ratio "$kw" "$kd")
else
	cw=- cd=- r5=0 kw=- kd=- r8=0
fi
# 8. colour classification alone: gs rendering a 100-page mixed PDF as privd-cups does
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sOutputFile="$dir/mix100.pdf" -c "1 1 100 {
	dup 10 mod 3 lt { 0 0.6 0 setrgbcolor 100 100 300 300 rectfill } if 0 setgray
	/Helvetica findfont 24 scalefont setfont 72 700 moveto (Page) show showpage pop } for"
t0=$(date +%s.%N)
npages=$(gs -q -dSAFER -dBATCH -dNOPAUSE -dUseFastColor=true -r36 -sDEVICE=ppmraw \
	-sOutputFile="$dir/mix100-%03d.ppm" "$dir/mix100.pdf" && ls "$dir"/mix100-*.ppm | wc -l)
inkps=$(echo "$(date +%s.%N) $t0 $npages" | awk '{ printf "%.0f", $3 / ($1 - $2) }')

# --- the big directory: 100k accounts, 10k cells, 50k grants, 200k memberships
"$dir/gen" 100000 10000 > "$dir/big.ldif"
bp=$(deploy/slapd-dev.sh init "$dir/big" "$dir/big.ldif")
hb=$(free_port)
t0=$(date +%s.%N)
bpid=$("$top/$privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$bp/" -l "127.0.0.1:$hb" \
	> "$dir/privd-big.log" 2>&1 & echo $!)
pids="$pids $bpid"
wait_ready "http://127.0.0.1:$hb"
load=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }')
rss=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$bpid/status")
bigreads=$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" \
	"http://127.0.0.1:$hb/v1/accounts/u000042/privileges")

# a usage report over the 100k accounts, from memory: the median of five
rep_ms() {
	curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $A" \
		"http://127.0.0.1:$hb/v1/reports/usage?privilege=print.pages&by=organisation&depth=2"
}
report_ms=$(for i in 1 2 3 4 5; do rep_ms; done | sort -n | sed -n 3p | awk '{ printf "%.0f", $1 * 1000 }')
one_ms=$(curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $R" \
	"http://127.0.0.1:$hb/v1/accounts/u000042/privileges" | awk '{ printf "%.2f", $1 * 1000 }')

# entitlements on the big directory: a publishing privd replaces the other;
# the first publish (groups, then a value per person), then one grant that
# gives a host to the people of one cell: the writes it costs against the
# accounts it reached (only those: one value each in the group and on the
# person, a write per person and one for the group)
kill "$bpid" 2>/dev/null || true
sleep 0.5
bmetric() { curl -s -H "Authorization: Bearer $R" "http://127.0.0.1:$hb/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
published() {	# CONFIG: starts a privd publishing as it says; seconds to its first whole pass
	local t0 v
	t0=$(date +%s.%N)
	"$top/$privd" -c "$1" -L "ldap://127.0.0.1:$bp/" -l "127.0.0.1:$hb" \
		>> "$dir/privd-ent.log" 2>&1 &
	echo $! > "$dir/epid"	# a command substitution's variables stay in it
	wait_ready "http://127.0.0.1:$hb"
	for _ in $(seq 1 3000); do
		v=$(bmetric privd_entitlement_values)
		[ -n "$v" ] && [ "$v" != 0 ] && break
		sleep 0.2
	done
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.0f", $1 - $2 }'
}
# the groups alone (a write per group and 1,000 members), then the values
# on top (a write per person: as fast as slapd takes modifies)
sed 's/publish: \[groups, attribute\]/publish: [groups]/' config/dev.yaml > "$dir/groups.yaml"
pub_groups=$(published "$dir/groups.yaml")
epid=$(cat "$dir/epid"); pids="$pids $epid"
gwrites=$(bmetric privd_entitlement_writes_total)
kill "$epid"; sleep 0.5
# the ceiling for the values: raw slapd taking the same modifies (20
# values a person, 32 in flight) for 10,000 of the people, values privd
# does not own, while one follower's persistent search of the people is
# open as privd's is (slapd sends it every person written, about 0.3 ms of
# slapd's CPU each here)
ldapsearch -x -LLL -H "ldap://127.0.0.1:$bp/" -D cn=privd,dc=example,dc=edu -w privd-dev-secret \
	-b ou=people,dc=example,dc=edu -E '!sync=rp' uid privMembership privMembershipDates entryCSN \
	> /dev/null 2>&1 & follower=$!
sleep 5	# its refresh of the 100k people, before the writes
rawent=$("$dir/entwrite" "ldap://127.0.0.1:$bp/" cn=privd,dc=example,dc=edu privd-dev-secret \
	ou=people,dc=example,dc=edu 90000 10000 20 32)
kill "$follower" 2>/dev/null || true
pub_values=$(published config/dev.yaml)
epid=$(cat "$dir/epid"); pids="$pids $epid"
vwrites=$(bmetric privd_entitlement_writes_total)
first_pub=$((pub_groups + pub_values))
pubrate=$(echo "$vwrites $pub_values" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }')
r10=$(ratio "$pubrate" "$rawent")
rawfloor=$(echo "$vwrites $rawent" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }')
held0=$(bmetric privd_entitlement_values)
w0=$(bmetric privd_entitlement_writes_total); v0=$(bmetric privd_entitlement_values_written_total)
curl -sf -H "Authorization: Bearer $A" -d '{"cell":"r1/r0@o2/o1","grants":["login.hosts+=bench-h"]}' \
	"http://127.0.0.1:$hb/v1/grants" > /dev/null
t0=$(date +%s.%N)
for _ in $(seq 1 600); do [ "$(bmetric privd_entitlement_values)" != "$held0" ] && break; sleep 0.05; done
grant_ms=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.0f", ($1 - $2) * 1000 }')
w1=$(bmetric privd_entitlement_writes_total); v1=$(bmetric privd_entitlement_values_written_total)
reached=$(ldapsearch -x -LLL -H "ldap://127.0.0.1:$bp/" -D cn=admin,dc=example,dc=edu -w secret \
	-b "cn=login.hosts=bench-h,ou=entitlements,dc=example,dc=edu" -s base member |
	grep -c '^member:' || true)
gw=$(echo "$w1 $w0" | awk '{ print $1 - $2 }'); gv=$(echo "$v1 $v0" | awk '{ print $1 - $2 }')
only=$(echo "$gv $gw $reached" | awk '{ print ($1 == 2 * $3 && $2 <= $3 + 1 + int($3 / 1000) && $3 > 0) ? "pass" : "FAIL" }')

r1=$(ratio "$reads" "$ceil"); r2=$(ratio "$reads" "$ldapr"); r3=$(ratio "$charges" "$raw")
r2b=$(ratio "$reads" "$ldapor")
r4=$(ratio "$bigreads" "$reads")
r6=$(ratio "$deep" "$first"); r7=$(ratio "$bytes50k" "$bytes10")
r9=$(ratio "$paidc" "$allowc")
r11=$(ratio "$charging" "$alone")
printf '\nprivd benchmark (%s s per measurement; %s cores; %s)\n\n' "$D" "$(nproc)" "$(date -u +%Y-%m-%d)"
printf '%-44s %-28s %-12s %s\n' measurement result target verdict
printf '%-44s %-28s %-12s %s\n' "reads vs minimal MHD ceiling ($size B body)" "$r1 ($reads / $ceil req/s)" ">= 0.90" "$(verdict "$r1" 0.90 min)"
printf '%-44s %-28s %-12s %s\n' "reads vs LDAP per request, a search per cell" "${r2}x ($reads / $ldapr)" ">= 20x" "$(verdict "$r2" 20 min)"
printf '%-44s %-28s %-12s %s\n' "reads vs LDAP per request, one OR search" "${r2b}x ($reads / $ldapor)" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "charges vs raw slapd modify (8 at a time)" "$r3 ($charges / $raw /s)" ">= 0.70" "$(verdict "$r3" 0.70 min)"
printf '%-44s %-28s %-12s %s\n' "100k accounts: snapshot load" "$load s" "<= 3 s" "$(verdict "$load" 3 max)"
printf '%-44s %-28s %-12s %s\n' "100k accounts: resident memory" "$rss MB" "<= 300 MB" "$(verdict "$rss" 300 max)"
printf '%-44s %-28s %-12s %s\n' "100k accounts: reads vs small directory" "$r4 ($bigreads req/s)" ">= 0.90" "$(verdict "$r4" 0.90 min)"
printf '%-44s %-28s %-12s %s\n' "100k accounts: usage report by organisation" "$report_ms ms (one read: $one_ms ms)" "<= 500 ms" "$(verdict "$report_ms" 500 max)"
printf '%-44s %-28s %-12s %s\n' "100k accounts: first publish of entitlements" "$first_pub s (groups and values)" "<= 60 s" "$(verdict "$first_pub" 60 max)"
printf '%-44s %-28s %-12s %s\n' "  the groups alone / then values on people" "$pub_groups s ($gwrites writes) / $pub_values s ($vwrites)" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "  values vs raw slapd, same writes, a follower" "$r10 ($pubrate / $rawent /s)" ">= 0.80" "$(verdict "$r10" 0.80 min)"
printf '%-44s %-28s %-12s %s\n' "  the values at raw slapd's rate" "$rawfloor s for $vwrites writes" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "  one grant: writes for the accounts reached" "$gw writes, $gv values, $reached reached, $grant_ms ms" "only those" "$only"
printf '%-44s %-28s %-12s %s\n' "grant change to API, p50 / p99 (200)" "$pg50 / $pg99 ms" "p99 <= 100" "$(verdict "$pg99" 100 max)"
printf '%-44s %-28s %-12s %s\n' "membership change to API, p50 / p99 (200)" "$pm50 / $pm99 ms" "p99 <= 100" "$(verdict "$pm99" 100 max)"
printf '%-44s %-28s %-12s %s\n' "charges, one account: after 50k vs first 1k" "$r6 ($deep / $first /s)" ">= 0.90" "$(verdict "$r6" 0.90 min)"
printf '%-44s %-28s %-12s %s\n' "usage stream bytes/charge: at 50k vs at 10" "$r7 ($bytes50k / $bytes10 B)" "<= 1.5" "$(verdict "$r7" 1.5 max)"
printf '%-44s %-28s %-12s %s\n' "  (filling to 50k: $fill charges/s, 8 at a time)" "" "" ""
printf '%-44s %-28s %-12s %s\n' "charges on the paid wallet vs the allowance" "$r9 ($paidc / $allowc /s)" ">= 0.40" "$(verdict "$r9" 0.40 min)"
printf '%-44s %-28s %-12s %s\n' "privd CPU per charge, in reads" "$cpu_reads ($us_charge / $us_read us)" "<= 6" "$(verdict "$cpu_reads" 6 max)"
printf '%-44s %-28s %-12s %s\n' "  slapd CPU per charge" "$us_slapd us" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "  the floor: one event loop, in reads" "$floor_reads ($us_floor us)" "all 201" "$([ "$fbad" = 0 ] && echo pass || echo "FAIL ($fbad not 201)")"
printf '%-44s %-28s %-12s %s\n' "  privd CPU per charge vs the floor" "$r12" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "reads while two clients charge vs alone" "$r11 ($charging / $alone req/s)" ">= 0.70" "$(verdict "$r11" 0.70 min)"
printf '%-44s %-28s %-12s %s\n' "read latency at 25% of peak ($quarter req/s)" "p50 $q50 / p99 $q99 / p99.9 $q999 ms" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "  driver: achieved rate, late sends" "$qrate req/s, $qlag" "= target" "$(echo "$qrate $quarter $qlag" | awk '{ print ($1 >= 0.98 * $2 && $3 <= 0.01) ? "pass" : "FAIL" }')"
printf '%-44s %-28s %-12s %s\n' "read latency at 50% of peak ($half req/s)" "p50 $l50 / p99 $l99 / p99.9 $l999 ms" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "  driver: achieved rate, late sends" "$lrate req/s, $llag" "= target" "$(echo "$lrate $half $llag" | awk '{ print ($1 >= 0.98 * $2 && $3 <= 0.01) ? "pass" : "FAIL" }')"
printf '%-44s %-28s %-12s %s\n' "import of 20k accounts through the API" "$imp20 s" "(context)" "-"
printf '%-44s %-28s %-12s %s\n' "import of 100k accounts, privd --import" "$imp100 s" "<= 180 s" "$(verdict "$imp100" 180 max)"
printf '%-44s %-28s %-12s %s\n' "print jobs via cupsd: privd-cups vs direct" "$r5 ($cw / $cd jobs/s)" ">= 0.80" "$(verdict "$r5" 0.80 min)"
printf '%-44s %-28s %-12s %s\n' "priced colour queue vs direct, 20-page PDF" "$r8 ($kw / $kd jobs/s)" ">= 0.75" "$(verdict "$r8" 0.75 min)"
printf '%-44s %-28s %-12s %s\n' "colour classification, 100-page mixed PDF" "$inkps pages/s ($npages pages)" "(context)" "-"
