#!/usr/bin/env bash
# modeltest.sh - privd test and privctl test from the command line: the
# shipped demo test passes through both, a wrong expectation exits 1 naming
# its line and the explain, a bad test file exits 2, and the model a running
# privd exports (privctl export) passes the same test as the import file.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVD=${PRIVD_BIN:-server/privd}
PRIVCTL=${PRIVCTL_BIN:-client/privctl}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
case $PRIVCTL in /*) ;; *) PRIVCTL=$top/$PRIVCTL ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-modeltest.XXXXXX")
trap 'tests/integration/env.sh stop "$dir/env" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
fail() { echo "modeltest.sh: $*" >&2; exit 1; }
export PRIVD_BIN=$PRIVD

"$PRIVD" -c config/dev.yaml test config/demo-test.yaml > "$dir/out" || fail "privd test of the demo: $(cat "$dir/out")"
grep -q ' 0 failed' "$dir/out" || fail "privd test printed no summary"
"$PRIVCTL" test config/demo-test.yaml --config config/dev.yaml > "$dir/out" ||
	fail "privctl test of the demo: $(cat "$dir/out")"

cp config/demo.yaml "$dir/"
sed 's/^    print.pages: 300 .*/    print.pages: 200/' config/demo-test.yaml > "$dir/wrong.yaml"
rc=0; "$PRIVCTL" test "$dir/wrong.yaml" --config config/dev.yaml > "$dir/out" || rc=$?
[ "$rc" = 1 ] || fail "a wrong expectation exited $rc, not 1"
grep -q 'wrong.yaml:9: jdoe: print.pages is 300, expected 200' "$dir/out" ||
	fail "the failure does not name its line and values: $(cat "$dir/out")"
grep -q 'print.pages=300 on student@engineering/cse (applied)' "$dir/out" ||
	fail "the failure has no explain: $(cat "$dir/out")"

printf 'model: demo.yaml\nexpect: { jdoe: { print.pagez: 1 } }\n' > "$dir/bad.yaml"
rc=0; "$PRIVD" -c config/dev.yaml test "$dir/bad.yaml" 2> "$dir/err" || rc=$?
[ "$rc" = 2 ] || fail "a bad test file exited $rc, not 2"
grep -q "bad.yaml:2: no privilege 'print.pagez'" "$dir/err" || fail "no line and key: $(cat "$dir/err")"

# files that are not regular ones, or not privd's, are refused at once, quoting none
# of their content: /dev/zero, a FIFO nobody writes, a file shaped like /etc/shadow
mkfifo "$dir/fifo"
printf 'root:$6$Zq9SECRETHASH:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n' > "$dir/shadow"
for model in /dev/zero "$dir/fifo" "$dir/shadow"; do
	printf 'model: %s\nexpect: {}\n' "$model" > "$dir/files.yaml"
	rc=0; timeout 10 "$PRIVD" -c config/dev.yaml test "$dir/files.yaml" > "$dir/out" 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "privd test of model $model exited $rc, not 2: $(cat "$dir/out")"
	! grep -q SECRETHASH "$dir/out" || fail "privd test quoted $model: $(cat "$dir/out")"
	rc=0; timeout 10 "$PRIVD" -c config/dev.yaml --import "$model" --dry-run -L ldap://127.0.0.1:1/ \
		> "$dir/out" 2>&1 || rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "privd --import $model exited $rc"
	! grep -q SECRETHASH "$dir/out" || fail "privd --import quoted $model: $(cat "$dir/out")"
	rc=0; timeout 10 "$PRIVCTL" --url http://127.0.0.1:1 --key x import "$model" > "$dir/out" 2>&1 || rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "privctl import $model exited $rc"
done
rc=0; timeout 10 "$PRIVD" -c /dev/zero test config/demo-test.yaml > "$dir/out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'not a regular file' "$dir/out" || fail "privd -c /dev/zero: $rc $(cat "$dir/out")"

# the model as a running privd exports it
tests/integration/env.sh start "$dir/env" >/dev/null
port=$(cat "$dir/env/http_port")
"$PRIVCTL" --url "http://127.0.0.1:$port" --key dev-admin-5be71f0a48 import config/demo.yaml >/dev/null ||
	fail "the demo did not import"
"$PRIVCTL" --url "http://127.0.0.1:$port" --key dev-admin-5be71f0a48 export "$dir/export.yaml" ||
	fail "privctl export failed"
sed 's/^model: demo.yaml/model: export.yaml/' config/demo-test.yaml > "$dir/export-test.yaml"
"$PRIVCTL" test "$dir/export-test.yaml" --config config/dev.yaml > "$dir/out" ||
	fail "the exported model fails the demo's test: $(cat "$dir/out")"
echo "modeltest.sh: $(cat "$dir/out")"
