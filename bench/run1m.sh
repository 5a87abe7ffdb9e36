#!/usr/bin/env bash
# run1m.sh - make bench-1m: privd on a directory of 1,000,000 accounts,
# 100,000 cells and 2,000,000 memberships (bench/gen.c, loaded by slapadd),
# beside the demo-sized directory in the same run: the snapshot's load
# (and slapd's own time to send the people, the floor under it),
# memory (also its peak through the edits), reads against the small
# directory's, how long a grant and a membership change take to reach the
# API, a usage report; then privd --import of 1,000,000 accounts into an
# empty directory. The targets are issue 32's; one table, as make bench.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. bench/lib.sh
D=${BENCH_TIME:-5}
N=${BENCH_CHANGES:-20}
dir=$(mktemp -d /tmp/privd-bench1m.XXXXXX)
R=dev-read-4d1c8e27b9 A=dev-admin-5be71f0a48
pids=""
trap cleanup EXIT INT TERM
privd=server/privd
[ -x "$privd" ] || { echo "bench-1m: build privd first (make)" >&2; exit 1; }
sed 's/, publish: \[groups, attribute\]//' config/dev.yaml > "$dir/nopub.yaml"
for f in gen propagate population; do
	cc -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -o "$dir/$f" "bench/$f.c" \
		-lldap -llber -lcurl
done
kb_of() { awk -v k="$2" '$1 == k ":" { print $2 }' "/proc/$1/status"; }	# PID KEY: kB
mb() { echo "$1" | awk '{ printf "%.0f", $1 / 1024 }'; }
rss_of() { mb "$(kb_of "$1" "$2")"; }
# propagate's account and cells: prop in prop/a@ (print.pages moves), b and c
prop_ldif() {
	local b=ou=privileges,dc=example,dc=edu r
	printf 'dn: cn=prop,ou=reasons,%s\nobjectClass: privReason\ncn: prop\n\n' "$b"
	for r in a b c; do
		printf 'dn: cn=%s,cn=prop,ou=reasons,%s\nobjectClass: privReason\ncn: %s\n\n' "$r" "$b" "$r"
	done
	printf 'dn: cn=prop/a@,ou=cells,%s\nobjectClass: privCell\ncn: prop/a@\nprivCellReason: prop/a\nprivGrant: print.pages=1\n\n' "$b"
	printf 'dn: cn=prop/b@,ou=cells,%s\nobjectClass: privCell\ncn: prop/b@\nprivCellReason: prop/b\nprivGrant: print.pages=7\n\n' "$b"
	printf 'dn: cn=prop/c@,ou=cells,%s\nobjectClass: privCell\ncn: prop/c@\nprivCellReason: prop/c\nprivGrant: print.pages=9\n\n' "$b"
	printf 'dn: cn=@,ou=cells,%s\nobjectClass: privCell\ncn: @\nprivGrant: login.max_sessions=1\n\n' "$b"
	printf 'dn: uid=prop,ou=people,dc=example,dc=edu\nobjectClass: account\nobjectClass: privAccount\nuid: prop\nprivMembership: cn=prop/a@,ou=cells,%s\n\n' "$b"
}

# --- the small directory: the demo, plus propagate's cells
lp=$(deploy/slapd-dev.sh start "$dir/small")
prop_ldif | ldapadd -x -c -H "ldap://127.0.0.1:$lp/" -D cn=admin,dc=example,dc=edu -w secret > /dev/null
hp=$(free_port)
"$top/$privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$lp/" -l "127.0.0.1:$hp" > "$dir/privd.log" 2>&1 &
spid=$!; pids="$pids $spid"
wait_ready "http://127.0.0.1:$hp" 6000

# changes to the API (N of a kind; a grant on "@" builds in full): p50 p99
prop() {	# KIND PORT HTTP_PORT
	"$dir/propagate" "$1" "ldap://127.0.0.1:$2/" cn=admin,dc=example,dc=edu secret \
		ou=privileges,dc=example,dc=edu ou=people,dc=example,dc=edu "http://127.0.0.1:$3" "$R" "$N"
}

# every 10th generated account has used some pages this period (the
# report then reads usage), the period being the one privd charges now
per=$(curl -s -H "Authorization: Bearer $R" "http://127.0.0.1:$hp/v1/accounts/prop/privileges/print.pages" |
	sed -n 's/.*"period":"\([^"]*\)".*/\1/p')
# gen_dir NAME ACCOUNTS CELLS [MAXSIZE]: generated, slapadd, slapd started; its port
gen_dir() {	# NAME ACCOUNTS CELLS [MAXSIZE [MEMBERSHIPS]]
	{ "$dir/gen" "$2" "$3" 10 "$per" "${5:-2}"; prop_ldif; } > "$dir/$1.ldif"
	MAXSIZE=${4:-1073741824} deploy/slapd-dev.sh init "$dir/$1" "$dir/$1.ldif"
	rm -f "$dir/$1.ldif"
}
# start_privd NAME LDAP_PORT HTTP_PORT: privd on it, ready; its pid; the
# seconds to ready in $dir/NAME.load
start_privd() {
	local t0 p
	t0=$(date +%s.%N)
	"$top/$privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$2/" -l "127.0.0.1:$3" \
		> "$dir/privd-$1.log" 2>&1 &
	p=$!
	wait_ready "http://127.0.0.1:$3" 6000
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }' > "$dir/$1.load"
	echo "$p"
}
report_ms() {	# HTTP_PORT: a usage report by organisation, the median of three
	for i in 1 2 3; do curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $A" \
		"http://127.0.0.1:$1/v1/reports/usage?privilege=print.pages&by=organisation&depth=2"; done |
		sort -n | sed -n 2p | awk '{ printf "%.0f", $1 * 1000 }'
}
NA=${BENCH_ALL_CHANGES:-5}

# --- 100,000 accounts, 10,000 cells: the same rows, on their own
mp=$(gen_dir mid 100000 10000)
hm=$(free_port)
mpid=$(start_privd mid "$mp" "$hm"); pids="$pids $mpid"
mload=$(cat "$dir/mid.load")
mkb=$(kb_of "$mpid" VmRSS)	# after the load, as m6kb below
mrss=$(mb "$mkb")
mrep=$(report_ms "$hm")
read -r mg50 mg99 < <(prop grant "$mp" "$hm")
read -r mm50 mm99 < <(prop membership "$mp" "$hm")
read -r ma50 ma99 < <(N=$NA prop all "$mp" "$hm")
mpeak=$(rss_of "$mpid" VmHWM)
kill "$mpid"; wait "$mpid" 2>/dev/null || true
deploy/slapd-dev.sh stop "$dir/mid"

# --- the same 100,000 accounts with 6 memberships each: what a membership
#     costs, from the difference (400,000 more), and so what an account
#     costs without its own; privd on the small directory is the rest
m6p=$(gen_dir mid6 100000 10000 1073741824 6)
hm6=$(free_port)
m6pid=$(start_privd mid6 "$m6p" "$hm6"); pids="$pids $m6pid"
m6kb=$(kb_of "$m6pid" VmRSS)
kill "$m6pid"; wait "$m6pid" 2>/dev/null || true
deploy/slapd-dev.sh stop "$dir/mid6"
basekb=$(kb_of "$spid" VmRSS)
permem=$(echo "$m6kb $mkb" | awk '{ printf "%.0f", ($1 - $2) * 1024 / 400000 }')

# --- the big directory
t0=$(date +%s.%N)
bp=$(gen_dir big 1000000 100000 8589934592)
made=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.0f", $1 - $2 }')
hb=$(free_port)
# three starts, the median against the target, each shown: one start on
# this machine varies by up to a second (the two cores are shared by slapd,
# privd and whatever else runs)
loads=()
for k in 1 2 3; do
	[ "$k" = 1 ] || { kill "$bpid"; wait "$bpid" 2>/dev/null || true; }
	bpid=$(start_privd big "$bp" "$hb"); pids="$pids $bpid"
	loads+=("$(cat "$dir/big.load")")
done
load=$(printf '%s\n' "${loads[@]}" | sort -n | sed -n 2p)
bigkb=$(kb_of "$bpid" VmRSS)
rss=$(mb "$bigkb")
# slapd alone: the people as privd asks for them (a sync refresh), read by
# ldapsearch and thrown away; slapd sends them on one thread, so this is
# the floor under the load on this machine at this hour
t0=$(date +%s.%N)
ldapsearch -x -LLL -H "ldap://127.0.0.1:$bp/" -D cn=privd,dc=example,dc=edu -w privd-dev-secret \
	-E sync=ro -z 0 -b ou=people,dc=example,dc=edu '(|(objectClass=privAccount)(uid=*))' \
	uid privMembership privMembershipDates entryCSN > /dev/null
floor=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }')

# reads of one account, the big directory's against the small one's, in turns
path=/v1/accounts/prop/privileges
s1=$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "http://127.0.0.1:$hp$path")
b1=$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "http://127.0.0.1:$hb$path")
b2=$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "http://127.0.0.1:$hb$path")
s2=$(wrk_rps -t2 -c64 -d"${D}s" -H "Authorization: Bearer $R" "http://127.0.0.1:$hp$path")
small=$(( (s1 + s2) / 2 )); big=$(( (b1 + b2) / 2 ))
r1=$(ratio "$big" "$small")

rep=$(report_ms "$hb")

# changes to the API: N each, the grant on "@" (every account) last
read -r sg50 sg99 < <(prop grant "$lp" "$hp")
read -r sm50 sm99 < <(prop membership "$lp" "$hp")
read -r bg50 bg99 < <(prop grant "$bp" "$hb")
read -r bm50 bm99 < <(prop membership "$bp" "$hb")
read -r ba50 ba99 < <(N=$NA prop all "$bp" "$hb")
peak=$(rss_of "$bpid" VmHWM)
now=$(rss_of "$bpid" VmRSS)
peracct=$(echo "$rss" | awk '{ printf "%.0f", $1 * 1048576 / 1000000 }')
# an account less its two memberships and privd's own base (the cells and
# every 10th account's usage entry are in it)
pera=$(echo "$bigkb $basekb $permem" | awk '{ printf "%.0f", (($1 - $2) * 1024 - 2000000 * $3) / 1000000 }')

# privd --import of 1,000,000 accounts (bench/population.c) into an empty
# directory, alone on the machine; BENCH_IMPORT=0 leaves it out (it takes
# up to 20 minutes)
imp=- impn=-
if [ "${BENCH_IMPORT:-1}" != 0 ]; then
	kill "$bpid" 2>/dev/null; wait "$bpid" 2>/dev/null || true
	deploy/slapd-dev.sh stop "$dir/big"
	"$dir/population" 1000000 > "$dir/pop1m.yaml"
	ip=$(MAXSIZE=8589934592 deploy/slapd-dev.sh start "$dir/imp")
	t0=$(date +%s.%N)
	"$top/$privd" -c "$dir/nopub.yaml" -L "ldap://127.0.0.1:$ip/" --import "$dir/pop1m.yaml" \
		> "$dir/import1m.log" 2>&1 || { echo "bench-1m: the import failed:" >&2; tail -5 "$dir/import1m.log" >&2; exit 1; }
	imp=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.0f", $1 - $2 }')
	impn=$(ldapsearch -x -LLL -H "ldap://127.0.0.1:$ip/" -D cn=privd,dc=example,dc=edu -w privd-dev-secret \
		-b ou=people,dc=example,dc=edu -z 0 '(uid=*)' 1.1 | grep -c '^dn:')
	deploy/slapd-dev.sh stop "$dir/imp"
fi

printf '\nprivd with a million accounts (%s s per measurement; %s cores; %s; %s changes a row, %s on "@")\n\n' \
	"$D" "$(nproc)" "$(date -u +%Y-%m-%d)" "$N" "$NA"
row() { printf '%-46s %-30s %-12s %s\n' "$@"; }
row measurement result target verdict
row "1M accounts: generated and loaded by slapadd" "$made s" "(context)" "-"
row "1M accounts: snapshot load, median of 3" "$load s (${loads[0]}, ${loads[1]}, ${loads[2]})" "<= 8 s" "$(verdict "$load" 8 max)"
row "  the people as a sync refresh, slapd alone" "$floor s (the load $(ratio "$load" "$floor") of it)" "(context)" "-"
row "1M accounts: resident memory after the load" "$rss MB ($peracct B an account)" "<= 400 MB" "$(verdict "$rss" 400 max)"
row "  a membership / an account without them" "$permem B / $pera B (privd alone: $((basekb / 1024)) MB)" "(context)" "-"
row "1M accounts: peak resident memory, edits too" "$peak MB (now $now MB)" "<= 400 MB" "$(verdict "$peak" 400 max)"
row "1M accounts: reads vs small directory" "$r1 ($big / $small req/s)" ">= 0.90" "$(verdict "$r1" 0.90 min)"
row "1M accounts: usage report by organisation" "$rep ms (usage: every 10th)" "<= 200 ms" "$(verdict "$rep" 200 max)"
row "1M: grant change to API, few members, p50/p99" "$bg50 / $bg99 ms" "p99 <= 10" "$(verdict "$bg99" 10 max)"
row "1M: grant change to API, on @, p50/p99" "$ba50 / $ba99 ms" "p99 <= 100" "$(verdict "$ba99" 100 max)"
row "1M: membership change to API, p50/p99" "$bm50 / $bm99 ms" "p99 <= 10" "$(verdict "$bm99" 10 max)"
row "1M accounts: privd --import, empty directory" "$imp s ($impn accounts)" "<= 1200 s" \
	"$([ "$imp" = - ] && echo - || verdict "$imp" 1200 max)"
row "100k accounts: snapshot load" "$mload s" "(context)" "-"
row "100k accounts: resident memory, peak" "$mrss MB, peak $mpeak MB" "(context)" "-"
row "100k accounts: usage report by organisation" "$mrep ms" "(context)" "-"
row "100k: grant change to API, few members, p50/p99" "$mg50 / $mg99 ms" "p99 <= 10" "$(verdict "$mg99" 10 max)"
row "100k: grant change to API, on @, p50/p99" "$ma50 / $ma99 ms" "p99 <= 100" "$(verdict "$ma99" 100 max)"
row "100k: membership change to API, p50/p99" "$mm50 / $mm99 ms" "p99 <= 10" "$(verdict "$mm99" 10 max)"
row "small: grant change to API, p50/p99" "$sg50 / $sg99 ms" "(context)" "-"
row "small: membership change to API, p50/p99" "$sm50 / $sm99 ms" "(context)" "-"
