#!/usr/bin/env bash
# install.sh - make install DESTDIR=... puts every file deploy/README.md
# names where it says; the unit passes systemd-analyze verify; the shipped
# slapd examples are what privd --directory-config prints, and every slapd
# configuration in deploy/ carries the indexes of that one list.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-install.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "install.sh: $*" >&2; exit 1; }

make --no-print-directory install DESTDIR="$dir/root" PREFIX=/usr/local > "$dir/install.log" ||
	fail "make install failed: $(tail -5 "$dir/install.log")"
for f in sbin/privd bin/privctl share/man/man8/privd.8 share/man/man1/privctl.1 \
    share/man/man5/privd.yaml.5 share/man/man5/privd-import.5 share/privd/schema/privd.ldif \
    share/privd/schema/privd.schema share/privd/privd-cn-config.ldif share/privd/privd-slapd.conf \
    share/privd/privd.yaml share/privd/slapd-provider.conf share/privd/slapd-consumer.conf \
    share/privd/slapd-multiprovider.conf lib/systemd/system/privd.service lib/sysusers.d/privd.conf \
    share/doc/privd/README.md share/doc/privd/DEPLOY.md share/doc/privd/model.md \
    share/doc/privd/api.md share/doc/privd/quotas.md share/doc/privd/imports.md \
    share/doc/privd/privctl.md share/doc/privd/web.md share/doc/privd/security.md \
    share/doc/privd/operating.md share/doc/privd/replication.md share/doc/privd/notices.md \
    share/doc/privd/entitlements.md share/doc/privd/model-tests.md share/doc/privd/openapi.yaml \
    share/privd/demo-test.yaml \
    share/man/man8/privd-cups.8 share/doc/privd/CUPS.md share/privd/cups.yaml lib/cups/backend/privd \
    share/man/man8/pam_privd.8 share/doc/privd/PAM.md share/privd/pam.yaml share/privd/sshd share/privd/web/index.html share/privd/web/app.js share/privd/web/style.css \
    lib/security/pam_privd.so; do
	[ -s "$dir/root/usr/local/$f" ] || fail "make install did not install /usr/local/$f"
	grep -q "/usr/local/$f" deploy/README.md || fail "deploy/README.md does not name /usr/local/$f"
done
[ -x "$dir/root/usr/local/sbin/privd" ] || fail "privd is not executable"
[ "$(stat -c %a "$dir/root/usr/local/lib/cups/backend/privd")" = 700 ] ||
	fail "the CUPS backend is not mode 0700 (cupsd runs only such a backend as root)"
"$dir/root/usr/local/lib/cups/backend/privd" | grep -q '^network privd ' ||
	fail "the CUPS backend does not print its discovery line"
"$dir/root/usr/local/lib/cups/backend/privd" --check-config "$dir/root/usr/local/share/privd/cups.yaml" \
	2>&1 | grep -q 'key file /etc/privd/cups.key' || fail "the example cups.yaml does not parse up to its key file"
grep -q '^ExecStart=/usr/local/sbin/privd ' "$dir/root/usr/local/lib/systemd/system/privd.service" ||
	fail "the unit does not run the installed privd"
nm -D "$dir/root/usr/local/lib/security/pam_privd.so" | grep -q ' T pam_sm_acct_mgmt$' ||
	fail "pam_privd.so does not export pam_sm_acct_mgmt"
for m in privd.8 privd-cups.8 pam_privd.8 privctl.1 privd.yaml.5 privd-import.5; do
	sec=${m##*.}
	man --warnings -l "$dir/root/usr/local/share/man/man$sec/$m" > /dev/null 2> "$dir/man.err" || true
	[ -s "$dir/man.err" ] && fail "man $m: $(head -3 "$dir/man.err")"
done
# systemd checks the unit, pointed at the installed tree (its binary, its man pages)
mkdir -p "$dir/unit"
sed "s|/usr/local/sbin/privd|$dir/root/usr/local/sbin/privd|g" \
	"$dir/root/usr/local/lib/systemd/system/privd.service" > "$dir/unit/privd.service"
MANPATH="$dir/root/usr/local/share/man" systemd-analyze verify "$dir/unit/privd.service" \
	> "$dir/verify.log" 2>&1 || fail "systemd-analyze verify: $(cat "$dir/verify.log")"
grep -q . "$dir/verify.log" && fail "systemd-analyze verify warned: $(cat "$dir/verify.log")"

# one list: the shipped examples are what privd prints, the configs carry its indexes
cp deploy/privd-cn-config.ldif deploy/privd-slapd.conf "$dir/"
deploy/mkdirconf.sh "$top/server/privd"
cmp -s deploy/privd-cn-config.ldif "$dir/privd-cn-config.ldif" &&
	cmp -s deploy/privd-slapd.conf "$dir/privd-slapd.conf" ||
	{ cp "$dir/privd-cn-config.ldif" "$dir/privd-slapd.conf" deploy/;
	  fail "deploy/privd-cn-config.ldif or privd-slapd.conf is not what privd prints: run deploy/mkdirconf.sh"; }
grep '^index ' deploy/privd-slapd.conf > "$dir/indexes"
for conf in deploy/slapd-provider.conf deploy/slapd-consumer.conf deploy/slapd-multiprovider.conf \
    deploy/slapd-dev.sh; do
	while read -r line; do
		grep -qx "$line" "$conf" || fail "$conf lacks '$line' (the list in server/dirconf.c)"
	done < "$dir/indexes"
done
# the slapd examples load: slaptest, with this test's paths for theirs
for conf in deploy/slapd-provider.conf deploy/slapd-consumer.conf deploy/slapd-multiprovider.conf; do
	mkdir -p "$dir/slt/db/accesslog"
	sed -e "s|/var/lib/ldap|$dir/slt/db|; s|/run/slapd|$dir/slt|" -e '/^TLS/d' \
	    -e "s|include /etc/ldap/schema/privd.schema|include $top/schema/privd.schema|" \
	    "$conf" > "$dir/slt.conf"
	/usr/sbin/slapd -T test -u -f "$dir/slt.conf" > "$dir/slt.log" 2>&1 ||
		fail "$conf does not load: $(tail -3 "$dir/slt.log")"
done
echo "install.sh: make install put $(find "$dir/root" -type f | wc -l) files where deploy/README.md says; the unit verifies; one index list"
