#!/usr/bin/env bash
# consumers.sh - systems that only speak LDAP enforce privd's decisions from
# what privd publishes (server/publish.h), each started here on loopback
# against the same private slapd and privd (env.sh):
# - Apache httpd (Debian's apache2, mod_authnz_ldap): Require ldap-group
#   cn=printer.access=eng-laser,... lets an account in and another out, and
#   changes its answer after a grant and after a dated membership's end;
# - nslcd (Debian's, unpacked here, not installed) with pam_authz_search on
#   login.hosts=$hostname, through pamtester and pam_wrapper with pam_ldap:
#   allowed on a host privd allows, refused where it does not. nslcd reads
#   /etc/nslcd.conf and listens on /run/nslcd: both are private to a mount
#   namespace (an overlay on /etc, a tmpfs on /run), the host's untouched,
#   and the host name is the namespace's own (unshare -u).
# Root only (the namespace); apt-get download fetches nslcd and pam_ldap.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVD=${PRIVD_BIN:-server/privd}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "consumers.sh: skipped: the nslcd test needs a mount namespace (run as root)" >&2
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-consumers.XXXXXX")
cleanup() {
	[ -f "$dir/httpd.pid" ] && kill "$(cat "$dir/httpd.pid")" 2>/dev/null
	PRIVD_BIN=$PRIVD tests/integration/env.sh stop "$dir/env" >/dev/null 2>&1 || true
	sleep 0.2
	rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "consumers.sh: $*" >&2
	for f in "$dir/error.log" "$dir/nslcd.log" "$dir/out"; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -15 "$f" >&2; }
	done
	echo "consumers.sh: $*" >&2
	exit 1
}

PRIVD_BIN=$PRIVD tests/integration/env.sh start "$dir/env" >/dev/null
LP=$(cat "$dir/env/ldap_port")
U=http://127.0.0.1:$(cat "$dir/env/http_port")
A='Authorization: Bearer dev-admin-5be71f0a48'
L="ldap://127.0.0.1:$LP/"
G=ou=entitlements,dc=example,dc=edu
admin() { ldapmodify -x -H "$L" -D cn=admin,dc=example,dc=edu -w secret > /dev/null; }

cat > "$dir/model.yaml" <<'EOF'
reasons: { staff: { academic: {} }, student: { undergrad: {} }, visitor: {} }
organisations: { eng: { cse: {} } }
grants:
  "staff@eng": { printer.access: [eng-laser], login.hosts: [cse-lab] }
  "student@eng/cse": { login.hosts: [cse-lab] }
accounts:
  alice: [staff/academic@eng]
  bob: [visitor@eng]
  carol: [student/undergrad@eng/cse]
  dave: [student/undergrad@eng]
EOF
curl -sf -H "$A" --data-binary @"$dir/model.yaml" "$U/v1/import" > /dev/null || fail "the import failed"
# passwords and POSIX attributes, as a campus directory has them
n=2000
for u in alice bob carol dave; do
	n=$((n + 1))
	printf 'dn: uid=%s,ou=people,dc=example,dc=edu\nchangetype: modify\nadd: objectClass\nobjectClass: simpleSecurityObject\nobjectClass: posixAccount\n-\nadd: userPassword\nuserPassword: %s-pw\n-\nadd: cn\ncn: %s\n-\nadd: uidNumber\nuidNumber: %d\n-\nadd: gidNumber\ngidNumber: 100\n-\nadd: homeDirectory\nhomeDirectory: /home/%s\n' \
		"$u" "$u" "$u" "$n" "$u" | admin || fail "cannot give $u a password"
done
in_group() {	# CN UID
	ldapsearch -x -LLL -H "$L" -D cn=admin,dc=example,dc=edu -w secret -b "cn=$1,$G" \
		"(member=uid=$2,ou=people,dc=example,dc=edu)" 1.1 2>/dev/null | grep -q '^dn:'
}
wait_for "privd to publish alice in printer.access=eng-laser" 100 in_group printer.access=eng-laser alice

# --- Apache httpd with mod_authnz_ldap
HP=$(free_port)
M=/usr/lib/apache2/modules
mkdir -p "$dir/www/laser"
echo "the laser's page" > "$dir/www/laser/index.html"
chmod -R a+rX "$dir"
cat > "$dir/httpd.conf" <<EOF
ServerRoot $dir
ServerName localhost
Listen 127.0.0.1:$HP
PidFile $dir/httpd.pid
ErrorLog $dir/error.log
LogLevel warn
User nobody
Group nogroup
LoadModule mpm_event_module $M/mod_mpm_event.so
LoadModule authn_core_module $M/mod_authn_core.so
LoadModule authz_core_module $M/mod_authz_core.so
LoadModule auth_basic_module $M/mod_auth_basic.so
LoadModule ldap_module $M/mod_ldap.so
LoadModule authnz_ldap_module $M/mod_authnz_ldap.so
DocumentRoot $dir/www
# mod_ldap keeps answers 600 s unless told; deploy/consumers/apache.conf
LDAPCacheTTL 1
LDAPOpCacheTTL 1
<Location /laser>
	AuthType Basic
	AuthName "the engineering laser"
	AuthBasicProvider ldap
	AuthLDAPURL "ldap://127.0.0.1:$LP/ou=people,dc=example,dc=edu?uid"
	AuthLDAPBindDN cn=privd,dc=example,dc=edu
	AuthLDAPBindPassword privd-dev-secret
	AuthLDAPGroupAttribute member
	AuthLDAPGroupAttributeIsDN on
	Require ldap-group cn=printer.access=eng-laser,$G
</Location>
EOF
/usr/sbin/apache2 -f "$dir/httpd.conf" -k start || fail "apache2 did not start"
wait_for "apache2 on $HP" 100 port_open "$HP"
code() { curl -s -o /dev/null -w '%{http_code}' -u "$1:$1-pw" "http://127.0.0.1:$HP/laser/index.html"; }
[ "$(code alice)" = 200 ] || fail "alice (staff of eng: eng-laser) was not let in: $(code alice)"
[ "$(code bob)" = 401 ] || fail "bob (a visitor) was let in: $(code bob)"
# a grant: the visitors of eng get the laser
curl -sf -H "$A" -d '{"cell":"visitor@eng","grants":["printer.access+=eng-laser"]}' \
	"$U/v1/grants" > /dev/null || fail "the grant failed"
t0=$(date +%s%N)
is200() { [ "$(code "$1")" = 200 ]; }
wait_for "Apache to let bob in after the grant" 100 is200 bob
t1=$(date +%s%N)
# a dated membership: carol is staff for a few seconds
until=$(date -u -d '+4 seconds' +%Y-%m-%dT%H:%M:%SZ)
curl -sf -H "$A" -d "{\"account\":\"carol\",\"cell\":\"staff/academic@eng\",\"until\":\"$until\"}" \
	"$U/v1/memberships" > /dev/null || fail "the dated membership failed"
wait_for "Apache to let carol in while she is staff" 50 is200 carol
is401() { [ "$(code "$1")" = 401 ]; }
wait_for "Apache to shut carol out when her membership ended" 150 is401 carol
echo "consumers.sh: Apache Require ldap-group: in with the group, out without; a grant let a visitor in $(( (t1 - t0) / 1000000 )) ms later, a dated membership's end shut her out"

# --- nslcd and pam_ldap (Debian's packages, unpacked, not installed)
mkdir -p "$dir/pkg"
get() { (cd "$dir/pkg" && apt-get download -qq nslcd libpam-ldapd > /dev/null 2>&1); }
get || { apt-get update -qq > /dev/null 2>&1; get; } || fail "apt-get download nslcd libpam-ldapd failed"
for f in "$dir"/pkg/*.deb; do dpkg-deb -x "$f" "$dir/pkg/root"; done
NSLCD=$dir/pkg/root/usr/sbin/nslcd
PAMLDAP=$(find "$dir/pkg/root" -name pam_ldap.so | head -1)
[ -x "$NSLCD" ] && [ -n "$PAMLDAP" ] || fail "nslcd or pam_ldap.so is not in the packages"
cat > "$dir/nslcd.conf" <<EOF
uri ldap://127.0.0.1:$LP/
base dc=example,dc=edu
base passwd ou=people,dc=example,dc=edu
binddn cn=privd,dc=example,dc=edu
bindpw privd-dev-secret
# login only where privd's login.hosts says, by this host's name
pam_authz_search (&(objectClass=groupOfNames)(cn=login.hosts=\$hostname)(member=\$dn))
EOF
chmod 600 "$dir/nslcd.conf"
mkdir -p "$dir/pam.d"
printf 'account required %s\n' "$PAMLDAP" > "$dir/pam.d/login"
printf 'account required pam_deny.so\n' > "$dir/pam.d/other"
# on HOST: a private /etc (nslcd.conf), /run (its socket) and host name
cat > "$dir/on-host.sh" <<EOF
#!/bin/bash
set -eu
host=\$1; shift
mount --make-rprivate /
mount -t tmpfs tmpfs "$dir/ns"
mkdir -p "$dir/ns/up" "$dir/ns/work"
mount -t overlay overlay -o lowerdir=/etc,upperdir="$dir/ns/up",workdir="$dir/ns/work" /etc
cp "$dir/nslcd.conf" /etc/nslcd.conf
mount -t tmpfs tmpfs /run
mkdir -p /run/nslcd
hostname "\$host"
"$NSLCD" -d > "$dir/nslcd.log" 2>&1 &
pid=\$!
for i in \$(seq 1 50); do [ -S /run/nslcd/socket ] && break; sleep 0.1; done
rc=0
for u in "\$@"; do
	if LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$dir/pam.d" \
	    pamtester login "\$u" acct_mgmt >> "$dir/out" 2>&1; then echo "\$u allowed"; else echo "\$u refused"; fi
done
kill \$pid
EOF
chmod +x "$dir/on-host.sh"
mkdir -p "$dir/ns"
unshare -mu "$dir/on-host.sh" cse-lab alice carol bob dave > "$dir/cse-lab" 2>>"$dir/out" ||
	fail "the namespace for cse-lab did not run"
grep -qx 'alice allowed' "$dir/cse-lab" || fail "alice (staff: cse-lab) refused on cse-lab: $(cat "$dir/cse-lab")"
grep -qx 'carol allowed' "$dir/cse-lab" || fail "carol (a cse student) refused on cse-lab: $(cat "$dir/cse-lab")"
grep -qx 'bob refused' "$dir/cse-lab" || fail "bob (a visitor) allowed on cse-lab: $(cat "$dir/cse-lab")"
grep -qx 'dave refused' "$dir/cse-lab" || fail "dave (an eng student, not cse) allowed on cse-lab"
unshare -mu "$dir/on-host.sh" gpu-cluster alice > "$dir/gpu" 2>>"$dir/out" ||
	fail "the namespace for gpu-cluster did not run"
grep -qx 'alice refused' "$dir/gpu" || fail "alice allowed on gpu-cluster, which privd gives nobody"
# a grant: dave's cell gets the cse lab; nslcd asks the directory each time
curl -sf -H "$A" -d '{"cell":"student@eng","grants":["login.hosts+=cse-lab"]}' \
	"$U/v1/grants" > /dev/null || fail "the grant failed"
wait_for "dave in login.hosts=cse-lab" 50 in_group login.hosts=cse-lab dave
unshare -mu "$dir/on-host.sh" cse-lab dave > "$dir/cse-lab2" 2>>"$dir/out" || fail "the namespace did not run"
grep -qx 'dave allowed' "$dir/cse-lab2" || fail "dave refused on cse-lab after the grant"
[ ! -e /etc/nslcd.conf ] || ! grep -q "127.0.0.1:$LP" /etc/nslcd.conf ||
	fail "the host's /etc/nslcd.conf was touched"
echo "consumers.sh: nslcd pam_authz_search through pam_ldap: allowed on cse-lab with login.hosts=cse-lab, refused without and on gpu-cluster; a grant let dave in"
