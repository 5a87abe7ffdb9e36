#!/usr/bin/env bash
# pam.sh - pam_privd.so through real PAM: pamtester with pam_wrapper (a
# private service directory, no system file touched) against a real privd
# and slapd (env.sh). Login access by host, the school-wide session limit
# across privd restarts, 20 racing opens at the API, TTL expiry, a hung or
# stopped privd within timeout_ms, and one run under valgrind.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PAMMOD=${PAMMOD:-client/pam/pam_privd.so}
PRIVCTL=${PRIVCTL_BIN:-client/privctl}
PRIVD=${PRIVD_BIN:-server/privd}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
case $PAMMOD in /*) ;; *) PAMMOD=$top/$PAMMOD ;; esac
case $PRIVCTL in /*) ;; *) PRIVCTL=$top/$PRIVCTL ;; esac
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "pam.sh: skipped: the key file must be root's (run as root)" >&2
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-pam.XXXXXX")
cleanup() {
	[ -f "$dir/env/privd.pid" ] && kill -CONT "$(cat "$dir/env/privd.pid")" 2>/dev/null
	tests/integration/env.sh stop "$dir/env" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "pam.sh: $*" >&2; [ -f "$dir/out" ] && tail -5 "$dir/out" >&2; exit 1; }

tests/integration/env.sh start "$dir/env" >/dev/null
HP=$(cat "$dir/env/http_port")
U=http://127.0.0.1:$HP
C='Authorization: Bearer dev-charge-93fa06d2c1'
cat > "$dir/model.yaml" <<'EOF'
reasons:
  staff: { academic: {} }
  student: { undergrad: {} }
organisations:
  engineering: { cse: {} }
grants:
  "@engineering/cse":
    login.hosts: [+cse-lab]
    login.max_sessions: 3
  "staff@engineering":
    login.max_sessions: 5
accounts:
  ann: [student/undergrad@engineering/cse]
  ben: [student/undergrad@engineering]
  cat: [staff/academic@engineering/cse]
  dan: [student/undergrad@engineering/cse]
EOF
curl -sf -H 'Authorization: Bearer dev-admin-5be71f0a48' --data-binary @"$dir/model.yaml" \
	"$U/v1/import" > /dev/null || fail "the import failed"
printf 'dev-charge-93fa06d2c1\n' > "$dir/key"
chmod 600 "$dir/key"
printf 'urls: [%s]\nkey_file: %s/key\n' "$U" "$dir" > "$dir/pam.yaml"
mkdir -p "$dir/pam.d"
svc() {	# NAME ARGS...: a service with pam_privd in account and session
	local n=$1
	shift
	printf 'account required %s config=%s/pam.yaml host=cse-lab %s\n' "$PAMMOD" "$dir" "$*" > "$dir/pam.d/$n"
	printf 'session required %s config=%s/pam.yaml host=cse-lab %s\n' "$PAMMOD" "$dir" "$*" >> "$dir/pam.d/$n"
}
svc lab
svc short ttl=2
svc deny unreachable=deny timeout_ms=700
svc allow unreachable=allow timeout_ms=700
printf 'account required pam_deny.so\nsession required pam_deny.so\n' > "$dir/pam.d/other"
pt() {	# SERVICE USER OPS...: pamtester through pam_wrapper; output in $dir/out
	LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$dir/pam.d" \
		PAM_WRAPPER_DEBUGLEVEL=2 pamtester "$@" > "$dir/out" 2>&1
}
says() { grep -qF -- "$1" "$dir/out" || fail "pamtester did not say '$1'"; }
open_count() { curl -sf -H "$C" "$U/v1/accounts/$1/sessions" | jq .open; }

# --- account: the host's element of login.hosts
pt lab ann acct_mgmt || fail "ann (login.hosts has cse-lab) was refused"
pt lab ben acct_mgmt && fail "ben (no cse-lab) was let in"
says "privd: ben may not log in to cse-lab"
says "Permission denied"
pt lab nobody acct_mgmt && fail "an unknown account was let in"
says "User not known to the underlying authentication module"
echo "pam.sh: acct_mgmt: allowed with the host's element, PAM_PERM_DENIED with the message without, PAM_USER_UNKNOWN for no account"

# --- session: three open, the fourth refused naming where, close lets one in
pt lab ann open_session || fail "ann's first session was refused"
pt lab ann open_session || fail "ann's second session was refused"
pt lab ann open_session close_session || fail "open and close of ann's third failed"
[ "$(open_count ann)" = 2 ] || fail "close_session did not end the session: $(open_count ann) open"
pt lab ann open_session || fail "ann's third session was refused"
pt lab ann open_session && fail "ann's fourth session was let in (max 3)"
says "privd: ann has 3 of 3 sessions open already (cse-lab since"
tests/integration/env.sh privd-restart "$dir/env"
[ "$(open_count ann)" = 3 ] || fail "a privd restart lost sessions: $(open_count ann) open"
pt lab ann open_session && fail "after a restart, ann's fourth session was let in"
curl -sf -H 'Authorization: Bearer dev-read-4d1c8e27b9' "$U/v1/accounts/ann/privileges" |
	jq -e '.privileges["login.max_sessions"] | .value == 3 and .open == 3' > /dev/null ||
	fail "the privileges answer does not show open: 3"
id=$(curl -sf -H "$C" "$U/v1/accounts/ann/sessions" | jq -r '.sessions[0].session_id')
PRIVD_URL=$U PRIVD_KEY=dev-charge-93fa06d2c1 "$PRIVCTL" sessions ann > "$dir/list.out" ||
	fail "privctl sessions failed"
grep -q "ann login.max_sessions: 3 of 3 open" "$dir/list.out" && grep -qF "$id" "$dir/list.out" ||
	fail "privctl sessions does not list them: $(cat "$dir/list.out")"
PRIVD_URL=$U PRIVD_KEY=dev-charge-93fa06d2c1 "$PRIVCTL" sessions ann --end "$id" > /dev/null ||
	fail "privctl sessions --end failed"
pt lab ann open_session || fail "after one ended, ann's next session was refused"
echo "pam.sh: sessions: 3 of 3 open, the 4th refused naming the hosts, none lost by a restart, one ended lets the next in"

# --- 20 parallel opens against a limit of 5 (API): exactly 5
for i in $(seq 1 20); do
	curl -s -o /dev/null -w '%{http_code}\n' -H "$C" \
		-d "{\"request_id\":\"race-$i\",\"host\":\"h$i\",\"service\":\"sshd\"}" \
		"$U/v1/accounts/cat/sessions" > "$dir/race.$i" &
done
wait
[ "$(cat "$dir"/race.* | grep -c '^201$')" = 5 ] ||
	fail "20 racing opens: $(cat "$dir"/race.* | sort | uniq -c | tr '\n' ' ') (want 5 x 201)"
[ "$(cat "$dir"/race.* | grep -c '^409$')" = 15 ] || fail "20 racing opens: not 15 refused"
[ "$(open_count cat)" = 5 ] || fail "after the race $(open_count cat) are open, not 5"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$C" \
	-d '{"request_id":"race-1","host":"h1","service":"sshd"}' "$U/v1/accounts/cat/sessions")
case $code in 200|409) ;; *) fail "a replayed open answered $code" ;; esac
echo "pam.sh: 20 parallel opens against a limit of 5: exactly 5 open"

# --- a second privd on the same directory counts the same sessions
P2=$(free_port)
"$PRIVD" -c config/dev.yaml -L "ldap://127.0.0.1:$(cat "$dir/env/ldap_port")/" -l "127.0.0.1:$P2" \
	> "$dir/privd2.log" 2>&1 &
privd2=$!
wait_for "the second privd" 200 curl -sf "http://127.0.0.1:$P2/readyz"
seen2() { curl -sf -H 'Authorization: Bearer dev-read-4d1c8e27b9' \
	"http://127.0.0.1:$P2/v1/accounts/cat/privileges/login.max_sessions" | jq -e ".open == $1"; }
wait_for "the second privd to show 5 open" 100 seen2 5
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$C" \
	-d '{"request_id":"via-2","host":"h99","service":"sshd"}' "http://127.0.0.1:$P2/v1/accounts/cat/sessions")
[ "$code" = 409 ] || fail "the second privd opened a sixth session ($code)"
kill "$privd2"
echo "pam.sh: a second privd sees the same open sessions and the same limit"

# --- TTL: a session never closed frees its slot when its TTL passes
curl -sf -X DELETE -H "$C" "$U/v1/accounts/ann/sessions/$(curl -sf -H "$C" \
	"$U/v1/accounts/ann/sessions" | jq -r '.sessions[0].session_id')" > /dev/null
pt short ann open_session || fail "a short session was refused"
pt lab ann open_session && fail "ann had a fourth session"
sleep 3
pt lab ann open_session || fail "the expired session did not free its slot"
echo "pam.sh: TTL: an expired session freed its slot without a close"

# --- privd hung (SIGSTOP) and stopped: deny refuses, allow admits, within timeout_ms
ms() { date +%s%3N; }
pid=$(cat "$dir/env/privd.pid")
kill -STOP "$pid"
t0=$(ms); pt deny ann acct_mgmt && fail "a hung privd with unreachable=deny let ann in"; t1=$(ms)
[ $((t1 - t0)) -lt 2500 ] || fail "a hung privd held the login $((t1 - t0)) ms (timeout_ms=700)"
t0=$(ms); pt allow ben acct_mgmt || fail "a hung privd with unreachable=allow refused"; t1=$(ms)
[ $((t1 - t0)) -lt 2500 ] || fail "a hung privd held the login $((t1 - t0)) ms (timeout_ms=700)"
t0=$(ms); pt deny cat open_session && fail "a hung privd with unreachable=deny opened a session"; t1=$(ms)
[ $((t1 - t0)) -lt 2500 ] || fail "a hung privd held the session $((t1 - t0)) ms"
kill -CONT "$pid"
kill "$pid"
wait_for "privd to stop" 100 not port_open "$HP"
pt deny ann acct_mgmt && fail "a stopped privd with unreachable=deny let ann in"
pt allow ann acct_mgmt || fail "a stopped privd with unreachable=allow refused"
tests/integration/env.sh privd-start "$dir/env"
echo "pam.sh: privd hung or stopped: deny refused, allow admitted, each within timeout_ms"

# --- a bad argument and a readable key file fail closed, and say why
svc bad unreachable=sometimes
pt bad ann acct_mgmt && fail "a bad module argument let ann in"
says "bad module argument 'unreachable=sometimes'"
chmod 644 "$dir/key"
pt lab ann acct_mgmt && fail "a world-readable key file let ann in"
says "mode 0644 lets others read or change the key"
chmod 600 "$dir/key"
echo "pam.sh: a bad module argument and a readable key file: refused, and the log says why"

# --- the module under valgrind: no invalid access, no leak
pt lab dan acct_mgmt || fail "dan was refused before the valgrind run"
LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$dir/pam.d" \
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite pamtester lab dan acct_mgmt open_session close_session \
	> "$dir/out" 2>&1 || fail "pam_privd under valgrind: $(grep -E '==[0-9]+==' "$dir/out" | head -20)"
grep -q "session has successfully been closed" "$dir/out" || fail "pam_privd under valgrind: $(cat "$dir/out")"
echo "pam.sh: clean under valgrind (acct_mgmt, open_session, close_session)"
