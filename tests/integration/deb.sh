#!/usr/bin/env bash
# deb.sh - the Debian packages (make deb): lintian finds no error; installed
# with apt they make the privd user, keep /etc/privd/privd.yaml as a conffile
# root:privd 0640 in a 0750 directory, leave the unit disabled and the PAM
# profile off, put the CUPS backend 0700 where cupsd looks; the installed
# privd refuses the unconfigured example with a clear message, then, once
# configured, starts as user privd (by hand: no systemd here) and answers;
# purge takes all of it away and leaves the PAM stacks as they were.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/integration/lib.sh
fail() { echo "deb.sh: $*" >&2; [ -f "${dir:-/nonexistent}/privd.log" ] && tail -20 "$dir/privd.log" >&2; echo "deb.sh: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
	echo "deb.sh: skipped: installing packages needs root"
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-deb.XXXXXX")
chmod 755 "$dir"
PID=
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq privd privd-cups libpam-privd >/dev/null 2>&1 || true
	deploy/slapd-dev.sh stop "$dir/slapd" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT

make --no-print-directory deb > "$dir/build.log" 2>&1 || fail "make deb: $(tail -20 "$dir/build.log")"
lintian --fail-on error build/deb/*.changes > "$dir/lintian.log" 2>&1 ||
	fail "lintian: $(grep -E '^E:' "$dir/lintian.log" | head -20)"
grep -q '^E:' "$dir/lintian.log" && fail "lintian: $(grep '^E:' "$dir/lintian.log")"

md5sum /etc/pam.d/common-* > "$dir/pam.before"
debs=$(ls build/deb/privd_*.deb build/deb/privd-cups_*.deb build/deb/libpam-privd_*.deb | grep -v dbgsym)
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(printf './%s ' $debs) > "$dir/apt.log" 2>&1 ||
	fail "apt install: $(tail -10 "$dir/apt.log")"

mode() { stat -c '%a %U:%G' "$1"; }
getent passwd privd >/dev/null || fail "no privd user after the install"
[ "$(mode /etc/privd)" = "750 root:privd" ] || fail "/etc/privd is $(mode /etc/privd)"
[ "$(mode /etc/privd/privd.yaml)" = "640 root:privd" ] || fail "privd.yaml is $(mode /etc/privd/privd.yaml)"
dpkg-query -W -f='${Conffiles}\n' privd | grep -q '/etc/privd/privd.yaml' ||
	fail "/etc/privd/privd.yaml is not a conffile"
[ "$(mode /usr/lib/cups/backend/privd)" = "700 root:root" ] ||
	fail "the CUPS backend is $(mode /usr/lib/cups/backend/privd), not 700 root:root"
/usr/lib/cups/backend/privd | grep -q '^network privd ' || fail "the backend does not print its discovery line"
ls /usr/lib/*/security/pam_privd.so >/dev/null 2>&1 || fail "pam_privd.so is not where Debian's PAM looks"
grep -q '^Default: no' /usr/share/pam-configs/privd || fail "the pam-auth-update profile is not off by default"
grep -l pam_privd /etc/pam.d/common-* 2>/dev/null && fail "the install turned pam_privd on"
grep -q '^Type=notify' /lib/systemd/system/privd.service || fail "the unit is not Type=notify"
[ -e /etc/systemd/system/multi-user.target.wants/privd.service ] && fail "the unit is enabled before privd is configured"
[ "$(stat -c %a /usr/sbin/privd)" = 755 ] || fail "/usr/sbin/privd is $(stat -c %a /usr/sbin/privd)"

# unconfigured: the unit's ExecStartPre refuses, naming what to do
rc=0; /usr/sbin/privd -c /etc/privd/privd.yaml --check-config > "$dir/check.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "the unconfigured example passed --check-config"
grep -q 'privd.yaml:[0-9]*: ldap' "$dir/check.log" || fail "the refusal names no line: $(cat "$dir/check.log")"

# configured: started by hand as the unit would, as user privd
LP=$(deploy/slapd-dev.sh start "$dir/slapd") || fail "slapd did not start"
HP=$(free_port)
sed "s|dir: ../web|dir: /usr/share/privd/web|" config/dev.yaml > /etc/privd/privd.yaml
runuser -u privd -- /usr/sbin/privd -c /etc/privd/privd.yaml --check-config >/dev/null ||
	fail "user privd cannot read the configuration it is given"
# setpriv execs privd itself (runuser would stay its parent)
setpriv --reuid=privd --regid=privd --init-groups -- /usr/sbin/privd -c /etc/privd/privd.yaml \
	-L "ldap://127.0.0.1:$LP/" -l "127.0.0.1:$HP" > "$dir/privd.log" 2>&1 &
PID=$!
wait_for "the installed privd" 150 curl -sf "http://127.0.0.1:$HP/readyz"
curl -sf -H 'Authorization: Bearer dev-read-4d1c8e27b9' "http://127.0.0.1:$HP/v1/accounts/jdoe/privileges" |
	grep -q '"account"' || fail "the installed privd does not answer a read"
curl -sf "http://127.0.0.1:$HP/ui/" | grep -qi '<html' || fail "the installed web page is not served"
[ "$(ps -o user= -p "$PID")" = privd ] || fail "privd does not run as user privd"
/usr/sbin/privd -c /etc/privd/privd.yaml test /usr/share/privd/demo-test.yaml >/dev/null ||
	fail "the installed demo model test fails"
/usr/bin/privctl --version | grep -q '^privctl ' || fail "privctl is not installed"
kill "$PID"; wait "$PID" 2>/dev/null || true; PID=

DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq privd privd-cups libpam-privd > "$dir/purge.log" 2>&1 ||
	fail "apt purge: $(tail -10 "$dir/purge.log")"
for f in /etc/privd /usr/sbin/privd /usr/bin/privctl /usr/lib/cups/backend/privd \
    /usr/share/pam-configs/privd /lib/systemd/system/privd.service /usr/share/privd; do
	[ -e "$f" ] && fail "purge left $f"
done
ls /usr/lib/*/security/pam_privd.so >/dev/null 2>&1 && fail "purge left pam_privd.so"
getent passwd privd >/dev/null && fail "purge left the privd user"
getent group privd >/dev/null && fail "purge left the privd group"
md5sum -c --quiet "$dir/pam.before" || fail "the PAM stacks differ after install and purge"
echo "deb.sh: built ($(echo $debs | wc -w) packages, lintian clean of errors), installed, started as privd, purged"
