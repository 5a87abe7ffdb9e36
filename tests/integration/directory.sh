#!/usr/bin/env bash
# directory.sh - deploy/README.md's steps, run literally against a slapd
# configured the Debian way (cn=config from Debian's own template, 20
# people readable anonymously), with the preflight failing on each
# missing piece and passing at the end; then import, read, charge, and the
# anonymous people search still answering everyone. Real slapd, real privd.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
PRIVD=${PRIVD_BIN:-server/privd}
case $PRIVD in /*) ;; *) PRIVD=$top/$PRIVD ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-dir.XXXXXX")
chmod 755 "$dir"
privd_pid=
cleanup() {
	[ -n "$privd_pid" ] && kill "$privd_pid" 2>/dev/null
	[ -f "$dir/slapd.pid" ] && kill "$(cat "$dir/slapd.pid")" 2>/dev/null
	sleep 0.3
	rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "directory.sh: $*" >&2; [ -f "$dir/privd.log" ] && tail -20 "$dir/privd.log" >&2; exit 1; }
. tests/integration/lib.sh

# --- a slapd as Debian's package configures it (cn=config, back_mdb)
port=$(free_port)
sock=$dir/ldapi
usock=$(printf '%s' "$sock" | sed 's|/|%2F|g')
ldapi="ldapi://$usock"
mkdir -p "$dir/slapd.d" "$dir/db"
sed -e "s|@SUFFIX@|dc=example,dc=edu|g" -e "s|@PASSWORD@|$(slappasswd -s secret)|g" \
    -e "s|/var/lib/ldap|$dir/db|" -e "s|/var/run/slapd/slapd.pid|$dir/slapd.pid|" \
    -e "s|/var/run/slapd/slapd.args|$dir/slapd.args|" -e "s|@BACKEND@|mdb|g" \
    -e "s|@BACKENDOBJECTCLASS@|olcMdbConfig|g" -e "s|@BACKENDOPTIONS@||g" \
    /usr/share/slapd/slapd.init.ldif > "$dir/init.ldif"
/usr/sbin/slapadd -n0 -F "$dir/slapd.d" -l "$dir/init.ldif" > "$dir/slapadd.log" 2>&1 ||
	fail "slapadd of Debian's cn=config: $(cat "$dir/slapadd.log")"
/usr/sbin/slapd -F "$dir/slapd.d" -h "ldap://127.0.0.1:$port/ $ldapi" 2> "$dir/slapd.log" ||
	fail "slapd did not start: $(cat "$dir/slapd.log")"
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
H="ldap://127.0.0.1:$port/"
admin=(-x -H "$H" -D cn=admin,dc=example,dc=edu -w secret)
{
	printf 'dn: dc=example,dc=edu\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n'
	printf 'dn: ou=people,dc=example,dc=edu\nobjectClass: organizationalUnit\nou: people\n\n'
	printf 'dn: ou=groups,dc=example,dc=edu\nobjectClass: organizationalUnit\nou: groups\n\n'
	for i in $(seq -w 1 20); do
		printf 'dn: uid=p%s,ou=people,dc=example,dc=edu\nobjectClass: inetOrgPerson\n' "$i"
		printf 'objectClass: posixAccount\nuid: p%s\ncn: Person %s\nsn: P%s\n' "$i" "$i" "$i"
		printf 'uidNumber: %d\ngidNumber: 100\nhomeDirectory: /home/p%s\nuserPassword: pw%s\n\n' \
			$((2000 + 10#$i)) "$i" "$i"
	done
} > "$dir/people.ldif"
ldapadd "${admin[@]}" -f "$dir/people.ldif" > /dev/null || fail "loading the people"
anon_people() { ldapsearch -x -LLL -H "$H" -b dc=example,dc=edu '(objectClass=posixAccount)' uid | grep -c '^uid:' || true; }
[ "$(anon_people)" = 20 ] || fail "the anonymous people search does not start at 20"

# --- privd's configuration (deploy/README.md, step 2)
printf 'privd-dir-secret\n' > "$dir/ldap.secret"
chmod 600 "$dir/ldap.secret"
hp=$(free_port)
sed -e "s|^  uri: .*|  uri: $H|" -e "s|^  bind_password: .*|  bind_password_file: $dir/ldap.secret|" \
    -e "s|^  create_people: true|  create_people: false|" -e "s|^  listen: .*|  listen: 127.0.0.1:$hp|" \
    config/dev.yaml > "$dir/privd.yaml"
check() {	# WANT_EXIT PATTERN: the preflight exits so and prints the pattern
	set +e
	"$PRIVD" -c "$dir/privd.yaml" --check-directory > "$dir/check.out" 2>&1
	rc=$?
	set -e
	[ "$rc" = "$1" ] || fail "check-directory exited $rc, not $1: $(cat "$dir/check.out")"
	grep -q -- "$2" "$dir/check.out" || fail "check-directory did not say '$2': $(cat "$dir/check.out")"
}

# privd's bind account and the administrators' group (step 1)
{
	printf 'dn: cn=privd,dc=example,dc=edu\nobjectClass: organizationalRole\n'
	printf 'objectClass: simpleSecurityObject\ncn: privd\nuserPassword: privd-dir-secret\n\n'
	printf 'dn: cn=privd-admins,ou=groups,dc=example,dc=edu\nobjectClass: groupOfNames\n'
	printf 'cn: privd-admins\nmember: uid=p01,ou=people,dc=example,dc=edu\n'
} | ldapadd "${admin[@]}" > /dev/null || fail "adding privd's account"

# nothing yet: the schema is the first thing missing (step 3 fixes it)
check 1 "FAIL: schema: .*load schema/privd.ldif"
grep -q '^?     indexes: could not check (cn=config is not readable' "$dir/check.out" ||
	fail "an unreadable cn=config was not said: $(cat "$dir/check.out")"

# privd started now gives up, naming the fix, so systemd's Restart= can act
startup_fails() {	# CONFIG PATTERN WHAT
	set +e
	t0=$(date +%s)
	timeout 30 "$PRIVD" -c "$1" > "$dir/start.log" 2>&1
	rc=$?
	set -e
	[ "$rc" = 1 ] || fail "privd started against $3 exited $rc, not 1: $(tail -5 "$dir/start.log")"
	grep -q -- "$2" "$dir/start.log" || fail "privd did not say '$2': $(tail -5 "$dir/start.log")"
	# ldap.startup_timeout is 1 s: the backoff does not sleep past it
	[ $(( $(date +%s) - t0 )) -le 4 ] || fail "privd took $(( $(date +%s) - t0 )) s to give up on $3"
}
sed 's/^  timeout: 5/  timeout: 5\n  startup_timeout: 1/' "$dir/privd.yaml" > "$dir/quick.yaml"
# a directory without privd's schema is not ready, and says which fix
startup_fails "$dir/quick.yaml" "does not have privd's schema.*load schema/privd.ldif.*giving up" "no schema"

# optional (deploy/README.md, part 6 of --directory-config): privd may read the
# databases' suffixes and indexes in cn=config, so the preflight checks indexes
"$PRIVD" -c "$dir/privd.yaml" --directory-config ldif | sed -n '/^# 6\./,$p' > "$dir/config-read.ldif"
grep -q 'olcAccess: {0}to dn.regex="^(olcDatabase=\[^,\]+,)?cn=config$"' "$dir/config-read.ldif" || fail "no part 6: $(cat "$dir/config-read.ldif")"
ldapmodify -Q -Y EXTERNAL -H "$ldapi" -f "$dir/config-read.ldif" > /dev/null || fail "granting privd read on cn=config"
# ... and nothing else of it: not the main database's root password
rootpw=$(ldapsearch -x -LLL -H "$H" -D cn=privd,dc=example,dc=edu -w privd-dir-secret -b 'olcDatabase={1}mdb,cn=config' -s base olcRootPW olcSuffix 2>/dev/null || true)
printf '%s' "$rootpw" | grep -q '^olcSuffix: dc=example,dc=edu' || fail "privd cannot read the suffix: $rootpw"
printf '%s' "$rootpw" | grep -qi 'olcRootPW' && fail "privd's bind reads olcRootPW: $rootpw"
ldapadd -Q -Y EXTERNAL -H "$ldapi" -f schema/privd.ldif > /dev/null || fail "loading the schema"
check 1 "FAIL: ou=privileges,dc=example,dc=edu: missing; run privd -c FILE setup-directory"

# step 4: the subtree, made by an administrator's bind
printf 'secret\n' > "$dir/admin.secret"
"$PRIVD" -c "$dir/privd.yaml" setup-directory --bind-dn cn=admin,dc=example,dc=edu \
	--bind-password-file "$dir/admin.secret" > "$dir/setup.out" || fail "setup-directory: $(cat "$dir/setup.out")"
grep -q '^+ ou=cells,ou=privileges,dc=example,dc=edu' "$dir/setup.out" || fail "setup-directory made no ou=cells"
check 1 "FAIL: content sync (syncprov): \"Critical extension is unavailable\""
grep -q "FAIL: index privMembership eq .*missing" "$dir/check.out" ||
	fail "a missing index was not reported: $(cat "$dir/check.out")"
grep -q "FAIL: privd may write ou=privileges,dc=example,dc=edu: the directory refused" "$dir/check.out" ||
	fail "a read-only privd was not reported: $(cat "$dir/check.out")"

startup_fails "$dir/quick.yaml" "Critical extension is unavailable.*giving up" "no syncprov"
printf 'wrong\n' > "$dir/wrong.secret"
sed "s|^  bind_password_file: .*|  bind_password_file: $dir/wrong.secret|" "$dir/quick.yaml" > "$dir/wrong.yaml"
startup_fails "$dir/wrong.yaml" "refused privd's bind.*giving up" "a wrong password"

# step 5: syncprov, indexes, limits and ACLs from privd's own list
"$PRIVD" -c "$dir/privd.yaml" --directory-config ldif > "$dir/privd-config.ldif"
# privd's reads of the people are decided before the usage rule's regular
# expression (rule 5), except where privd creates people: then the
# directory's own rules decide, and the rules are numbered without a gap
grep -q '^olcAccess: {5}to dn.subtree="ou=people,dc=example,dc=edu" attrs=entry,uid,entryCSN by dn.exact="cn=privd,dc=example,dc=edu" read by \* break$' \
	"$dir/privd-config.ldif" || fail "no read rule for privd's people search: $(grep olcAccess "$dir/privd-config.ldif")"
sed "s|^  create_people: false|  create_people: true|" "$dir/privd.yaml" > "$dir/create.yaml"
"$PRIVD" -c "$dir/create.yaml" --directory-config ldif > "$dir/create-config.ldif"
grep -q 'attrs=entry,uid,entryCSN' "$dir/create-config.ldif" &&
	fail "with create_people privd's people reads were capped at read"
[ "$(sed '/^# 5\./q' "$dir/create-config.ldif" | grep -c '^olcAccess: {[0-8]}')" = 9 ] &&
	grep -q '^olcAccess: {5}to dn.regex=' "$dir/create-config.ldif" ||
	fail "with create_people the rules are not {0}..{8}: $(grep olcAccess "$dir/create-config.ldif")"
ldapmodify -c -Q -Y EXTERNAL -H "$ldapi" -f "$dir/privd-config.ldif" > "$dir/modify.log" 2>&1 || true
check 0 "ok:   content sync (syncprov)"
grep -q '^FAIL' "$dir/check.out" && fail "the finished directory still fails: $(cat "$dir/check.out")"
grep -q 'ok:   index privMembership eq' "$dir/check.out" || fail "indexes not checked: $(cat "$dir/check.out")"

# a read-only bind is named as such
sed -e "s|^  bind_dn: .*|  bind_dn: uid=p02,ou=people,dc=example,dc=edu|" \
    -e "s|^  bind_password_file: .*|  bind_password: pw02|" "$dir/privd.yaml" > "$dir/ro.yaml"
set +e
"$PRIVD" -c "$dir/ro.yaml" --check-directory > "$dir/ro.out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] && grep -q 'FAIL: privd may write .*refused' "$dir/ro.out" ||
	fail "a read-only bind passed the preflight: $(cat "$dir/ro.out")"

# step 6: privd runs, imports, answers, charges
"$PRIVD" -c "$dir/privd.yaml" > "$dir/privd.log" 2>&1 &
privd_pid=$!
U=http://127.0.0.1:$hp
for _ in $(seq 1 200); do curl -sf "$U/readyz" > /dev/null && break; sleep 0.05; done
curl -sf "$U/readyz" > /dev/null || fail "privd did not become ready"
cat > "$dir/model.yaml" <<'YAML'
reasons: { staff: { academic: {} }, student: { undergrad: {} } }
organisations: { engineering: { cse: {} } }
grants:
  "student@": { print.pages: 100, printer.access: [+student-laser] }
  "staff@": { print.pages: 1000 }
accounts:
  p01: [staff/academic@engineering]
  p03: [student/undergrad@engineering/cse]
YAML
A='Authorization: Bearer dev-admin-5be71f0a48'
R='Authorization: Bearer dev-read-4d1c8e27b9'
C='Authorization: Bearer dev-charge-93fa06d2c1'
curl -sf -H "$A" --data-binary @"$dir/model.yaml" "$U/v1/import" > /dev/null || fail "the import failed"
curl -sf -H "$R" "$U/v1/accounts/p03/privileges" | grep -q '"limit":100' || fail "p03 has no budget"
curl -sf -H "$C" -d '{"request_id":"dir-1","amount":7,"metadata":{"title":"p03-thesis"}}' "$U/v1/accounts/p03/quotas/print.pages/charges" |
	grep -q '"used":7' || fail "the charge did not count"
# privacy (the generated ACLs): p03 reads her own ledger and memberships,
# p04 neither hers nor anyone's; the model stays readable
as() { ldapsearch -x -LLL -o ldif-wrap=no -H "$H" -D "uid=$1,ou=people,dc=example,dc=edu" -w "pw${1#p}" -b "$2" 2>/dev/null || true; }
U3=uid=p03,ou=usage,ou=privileges,dc=example,dc=edu
as p03 "$U3" | grep -q 'p03-thesis' || fail "p03 cannot read her own ledger: $(as p03 "$U3")"
as p04 "$U3" | grep -q . && fail "p04 reads p03's ledger: $(as p04 "$U3" | head -5)"
as p04 ou=usage,ou=privileges,dc=example,dc=edu | grep -q privEntry && fail "p04 reads ledgers under ou=usage"
as p04 uid=p03,ou=people,dc=example,dc=edu | grep -q privMembership && fail "p04 reads p03's memberships"
as p03 uid=p03,ou=people,dc=example,dc=edu | grep -q privMembership || fail "p03 cannot read her own memberships"
as p04 ou=imports,ou=privileges,dc=example,dc=edu | grep -q '^dn:' && fail "p04 reads import records"
as p04 ou=cells,ou=privileges,dc=example,dc=edu | grep -q '^dn: cn=' || fail "p04 cannot read the model's cells"
# a person without memberships: 200 with the defaults; a typo: 404
code=$(curl -s -o "$dir/p10.json" -w '%{http_code}' -H "$R" "$U/v1/accounts/p10/privileges")
[ "$code" = 200 ] && grep -q '"memberships":\[\]' "$dir/p10.json" || fail "p10 answered $code: $(cat "$dir/p10.json")"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$R" "$U/v1/accounts/nobody/privileges")
[ "$code" = 404 ] || fail "an unknown uid answered $code"
[ "$(anon_people)" = 20 ] || fail "after privd's ACLs the anonymous people search returns $(anon_people) of 20"
echo "directory.sh: Debian cn=config slapd: privd without its schema gave up naming it; preflight failed on schema, subtree, syncprov and writes, passed when done; privd reads no olcRootPW; import, read, charge ok; a person reads only their own ledger and memberships; anonymous people search still 20 of 20"
