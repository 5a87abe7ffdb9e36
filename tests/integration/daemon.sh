#!/usr/bin/env bash
# daemon.sh - privd as systemd runs it, without systemd: a datagram socket
# stands in for NOTIFY_SOCKET and records what privd tells it (READY=1
# only once the first snapshot is published, STATUS= lines, WATCHDOG=1
# while the follower runs and none once it hangs, RELOADING=1, STOPPING=1);
# SIGHUP reloads: a key added works, a removed one is refused, a broken
# file changes nothing, a connection open across the reload is answered,
# a setting that needs a restart is named, terms and log.format change.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVD=${PRIVD_BIN:-server/privd}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
. tests/integration/lib.sh

dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-daemon.XXXXXX")
PID=
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	[ -n "${RECV:-}" ] && kill "$RECV" 2>/dev/null
	deploy/slapd-dev.sh stop "$dir/slapd" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "daemon.sh: $*" >&2
	echo "--- notifications" >&2; tr '\n' ' ' < "$dir/notify.log" | sed 's/@@/\n/g' | tail -15 >&2
	echo "--- privd's log" >&2; tail -25 "$dir/privd.log" >&2
	grep -h -A3 -E 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' "$dir"/privd.log >&2 || true
	echo "daemon.sh: $*" >&2
	exit 1
}
R='Authorization: Bearer dev-read-4d1c8e27b9'
A='Authorization: Bearer dev-admin-5be71f0a48'

# NOTIFY_SOCKET's other end: each datagram on a line of its own, ended by @@
python3 - "$dir/notify.sock" "$dir/notify.log" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        out.write(s.recv(4096).decode() + "\n@@\n")
EOF
RECV=$!
wait_for "the notify socket" 50 test -S "$dir/notify.sock"
: > "$dir/notify.log"
said() { grep -c -x -- "$1" "$dir/notify.log" || true; }

LP=$(deploy/slapd-dev.sh start "$dir/slapd") || fail "slapd did not start"
HP=$(free_port)
H="http://127.0.0.1:$HP"
sed "s|dir: ../web|dir: $top/web|" config/dev.yaml > "$dir/privd.yaml"

start_privd() {
	NOTIFY_SOCKET=$dir/notify.sock WATCHDOG_USEC=1500000 "$PRIVD" -c "$dir/privd.yaml" \
		-L "ldap://127.0.0.1:$LP/" -l "127.0.0.1:$HP" >>"$dir/privd.log" 2>&1 &
	PID=$!
}
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

echo "daemon.sh: READY=1 only once the first snapshot is published"
deploy/slapd-dev.sh stop "$dir/slapd" >/dev/null
start_privd
wait_for "privd's first STATUS" 50 grep -q '^STATUS=waiting for the first snapshot' "$dir/notify.log"
sleep 1
[ "$(said READY=1)" = 0 ] || fail "READY=1 before any snapshot (LDAP is down)"
[ "$(code "$H/readyz")" = 503 ] || fail "/readyz is not 503 with LDAP down"
deploy/slapd-dev.sh restart "$dir/slapd" >/dev/null
wait_for "READY=1 once LDAP is back" 150 grep -q -x 'READY=1' "$dir/notify.log"
[ "$(code "$H/readyz")" = 200 ] || fail "READY=1 was said but /readyz is not 200"
grep -q '^STATUS=following LDAP: [1-9][0-9]* accounts' "$dir/notify.log" ||
	fail "no STATUS line saying privd follows LDAP"

echo "daemon.sh: WATCHDOG=1 while the follower and the HTTP server run"
n1=$(said WATCHDOG=1)
sleep 2
n2=$(said WATCHDOG=1)
[ "$n2" -ge $((n1 + 2)) ] || fail "WATCHDOG=1 $n1 -> $n2 in 2 s (interval 1.5 s: 0.5 s apart)"

echo "daemon.sh: a stale follower says so in STATUS"
deploy/slapd-dev.sh stop "$dir/slapd" >/dev/null
wait_for "a STATUS saying stale" 100 grep -q '^STATUS=stale: LDAP unreachable' "$dir/notify.log"
deploy/slapd-dev.sh restart "$dir/slapd" >/dev/null
wait_for "following again" 150 sh -c "[ \$(grep -c '^STATUS=following LDAP' '$dir/notify.log') -ge 2 ]"

echo "daemon.sh: SIGHUP adds a key and removes another"
NEWKEY=reload-test-key-$RANDOM$RANDOM
HASH=$("$PRIVD" hash-key "$NEWKEY" | grep -o '[0-9a-f]\{64\}' | head -1)
[ ${#HASH} = 64 ] || fail "privd hash-key printed no hash"
[ "$(code -H "Authorization: Bearer $NEWKEY" "$H/v1/accounts/jdoe/privileges")" = 401 ] ||
	fail "the new key works before it is configured"
cp "$dir/privd.yaml" "$dir/privd.yaml.orig"
# a request half sent when the reload comes: answered after it; ldap.timeout
# waits for a restart: named in the log, not applied
exec 3<>"/dev/tcp/127.0.0.1/$HP"
printf 'GET /v1/accounts/jdoe/privileges HTTP/1.1\r\nHost: x\r\n' >&3
sed -e "s|^keys:|keys:\n  - { name: reload-test, sha256: $HASH, scopes: [read] }|" \
	-e '/name: dev-read,/d' -e 's/^  timeout: 5$/  timeout: 17/' \
	"$dir/privd.yaml.orig" > "$dir/privd.yaml"
grep -q '^  timeout: 17$' "$dir/privd.yaml" || fail "the test's edit of ldap.timeout did not apply"
r0=$(said RELOADING=1)
kill -HUP "$PID"
wait_for "the reload's log line" 50 grep -q 'reload: .* read:' "$dir/privd.log"
[ "$(said RELOADING=1)" -gt "$r0" ] || fail "no RELOADING=1 on SIGHUP"
printf 'Authorization: Bearer dev-admin-5be71f0a48\r\nConnection: close\r\n\r\n' >&3
head -1 <&3 | grep -q ' 200 ' || fail "a connection open across the reload was not answered 200"
exec 3<&-
[ "$(code -H "Authorization: Bearer $NEWKEY" "$H/v1/accounts/jdoe/privileges")" = 200 ] ||
	fail "a key added by the reload is refused"
[ "$(code -H "$R" "$H/v1/accounts/jdoe/privileges")" = 401 ] || fail "a key removed by the reload still works"
[ "$(code -H "$A" "$H/v1/accounts/jdoe/privileges")" = 200 ] || fail "a key kept by the reload stopped working"
grep -q 'reload: ldap.timeout changed: it takes a restart' "$dir/privd.log" ||
	fail "the reload did not name ldap.timeout as waiting for a restart"
[ "$(code "$H/readyz")" = 200 ] || fail "not ready after the reload"

echo "daemon.sh: a broken file changes nothing"
cp "$dir/privd.yaml" "$dir/privd.yaml.good"
printf 'keys: [\n' >> "$dir/privd.yaml"
kill -HUP "$PID"
wait_for "the refusal in the log" 50 grep -q 'reload: .*privd.yaml:[0-9]*: .*the configuration in force is kept' "$dir/privd.log"
[ "$(code -H "Authorization: Bearer $NEWKEY" "$H/v1/accounts/jdoe/privileges")" = 200 ] ||
	fail "a broken file took the reloaded key away"
[ "$(code -H "$R" "$H/v1/accounts/jdoe/privileges")" = 401 ] || fail "a broken file brought a removed key back"
kill -0 "$PID" || fail "privd died on a broken file"

echo "daemon.sh: terms and log.format by reload"
p0=$(curl -s -H "$A" "$H/v1/accounts/jdoe/quotas/print.pages" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["period"])')
today=$(date -u +%F)
sed -e "/^terms:/a\\  - { name: reloadterm, start: $today, end: $today }" \
	-e "/name: $p0,/d" "$dir/privd.yaml.good" > "$dir/privd.yaml"
printf 'log:\n  format: json\n' >> "$dir/privd.yaml"
lines=$(wc -l < "$dir/privd.log")
kill -HUP "$PID"
wait_for "the term by reload" 50 sh -c "curl -s -H '$A' '$H/v1/accounts/jdoe/quotas/print.pages' | grep -q '\"period\": *\"reloadterm\"'"
tail -n +$((lines + 1)) "$dir/privd.log" | grep -q . || fail "nothing logged after the reload"
tail -n +$((lines + 1)) "$dir/privd.log" | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    o = json.loads(line)
    assert set(o) >= {"time", "level", "msg"}, o
    n += 1
assert n > 0
' || fail "log lines after log.format: json are not JSON objects"
grep -q '"msg":"reload: ' "$dir/privd.log" || fail "the reload's own line is not in JSON"

echo "daemon.sh: SIGTERM says STOPPING=1"
kill "$PID"
for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && fail "privd did not stop on SIGTERM"
[ "$(said STOPPING=1)" -ge 1 ] || fail "no STOPPING=1"

echo "daemon.sh: a hung follower stops the watchdog"
cp "$dir/privd.yaml.orig" "$dir/privd.yaml"
: > "$dir/notify.log"
PRIVD_FAULT=sync-live:hang start_privd
wait_for "READY=1" 150 grep -q -x 'READY=1' "$dir/notify.log"
wait_for "the watchdog's warning" 50 grep -q 'watchdog: the LDAP follower has not run' "$dir/privd.log"
n1=$(said WATCHDOG=1)
sleep 2
n2=$(said WATCHDOG=1)
[ "$n1" = "$n2" ] || fail "WATCHDOG=1 went on ($n1 -> $n2) with the follower hung"
{ kill -9 "$PID"; wait "$PID"; } 2>/dev/null || true
PID=
echo "daemon.sh: ok"
