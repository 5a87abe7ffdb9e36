#!/usr/bin/env bash
# ui.sh - the web page in a real headless Chromium against a real slapd and
# privd (env.sh) with the demo school: tests/ui/ui.test.mjs drives it with
# playwright-core from tests/ui/package-lock.json. Screenshots at 375 and
# 1440 px are left in $UI_OUT (default build/ui) to be looked at.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/integration/lib.sh
UI_OUT=${UI_OUT:-$top/build/ui}
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-ui.XXXXXX")
cleanup() {
	tests/integration/env.sh stop "$dir/env" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "ui.sh: $*" >&2; exit 1; }

command -v node >/dev/null || fail "node is missing (make deps installs nodejs)"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || fail "chromium is missing (make deps installs it)"
# the packages of the lock file, once per lock file
stamp=tests/ui/node_modules/.privd-lock
if ! cmp -s tests/ui/package-lock.json "$stamp" 2>/dev/null; then
	(cd tests/ui && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci in tests/ui failed"
	cp tests/ui/package-lock.json "$stamp"
fi

tests/integration/env.sh start "$dir/env" >/dev/null
U=http://127.0.0.1:$(cat "$dir/env/http_port")
curl -sf -H 'Authorization: Bearer dev-admin-5be71f0a48' --data-binary @config/demo.yaml \
	"$U/v1/import" >/dev/null || fail "the demo import failed"
# vguest came with the import and has no password yet: give one, as the directory's administrator
ldapmodify -x -H "ldap://127.0.0.1:$(cat "$dir/env/ldap_port")/" -D cn=admin,dc=example,dc=edu \
	-w secret >/dev/null <<LDIF || fail "cannot set vguest's password"
dn: uid=vguest,ou=people,dc=example,dc=edu
changetype: modify
add: objectClass
objectClass: simpleSecurityObject
-
add: userPassword
userPassword: vguest-dev-secret
LDIF
# the files: their types, the policy on each, nothing outside web/
h=$(curl -s -D - -o /dev/null "$U/ui/app.js")
case $h in *"Content-Type: text/javascript"*) ;; *) fail "app.js is not served as JavaScript: $h" ;; esac
case $h in *"Content-Security-Policy: default-src 'none'; script-src 'self'"*) ;; *) fail "no strict policy on app.js" ;; esac
for p in '/ui/..%2Fconfig%2Fdev.yaml' '/ui/%2E%2E/config/dev.yaml' '/ui/.hidden.js' '/ui/nosuch.html' '/ui/app.js%00.png'; do
	st=$(curl -s -o /dev/null -w '%{http_code}' "$U$p")
	[ "$st" = 404 ] || fail "$p answered $st, not 404"
done
[ "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$U/ui")" = "301 $U/ui/" ] || fail "/ui does not lead to /ui/"
rm -rf "$UI_OUT"
PRIVD_URL=$U UI_OUT=$UI_OUT node tests/ui/ui.test.mjs || fail "the browser test failed (privd's log: $dir/env/privd.log)"
# failed sign-ins are limited as HTTP Basic logins are: ten a minute from
# one address (the browser test's two wrong passwords count too)
n=0
while :; do
	n=$((n + 1))
	st=$(curl -s -o /dev/null -w '%{http_code}' -d '{"uid":"jdoe","password":"guess-'"$n"'"}' "$U/v1/tokens")
	[ "$st" = 429 ] && break
	[ "$st" = 401 ] || fail "wrong password $n answered $st, not 401"
	[ "$n" -le 10 ] || fail "still no 429 after $n wrong passwords"
done
st=$(curl -s -o /dev/null -w '%{http_code}' -d '{"uid":"jdoe","password":"jdoe-dev-secret"}' "$U/v1/tokens")
[ "$st" = 429 ] || fail "a sign-in after ten failures answered $st, not 429"
# the limit is per address: another address still signs in
st=$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.2 \
	-d '{"uid":"jdoe","password":"jdoe-dev-secret"}' "$U/v1/tokens")
[ "$st" = 200 ] || fail "a sign-in from 127.0.0.2 answered $st while 127.0.0.1 was limited, not 200"
echo "ui.sh: files typed and under the policy, nothing outside web/; after ten failed sign-ins 429, even with the right password, from that address only"
