#!/usr/bin/env bash
# schema.sh - loads both forms of the schema into a real slapd: the .schema
# with slaptest (slapd.conf), the .ldif with ldapadd into cn=config. Also
# checks that privd.ldif is what schema/mkldif.sh makes of privd.schema.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-schema.XXXXXX")
trap '[ -f "$dir/slapd.pid" ] && kill "$(cat "$dir/slapd.pid")" 2>/dev/null; sleep 0.2; rm -rf "$dir"' EXIT

# 1. the two forms agree
"$top/schema/mkldif.sh" "$top/schema/privd.schema" | cmp -s - "$top/schema/privd.ldif" ||
	{ echo "schema.sh: privd.ldif is not what mkldif.sh makes of privd.schema" >&2; exit 1; }

# 2. slapd.conf form, checked by slaptest
cat > "$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include $top/schema/privd.schema
modulepath /usr/lib/ldap
moduleload back_mdb
database mdb
suffix "dc=example,dc=edu"
directory $dir/db
CONF
mkdir -p "$dir/db"
/usr/sbin/slapd -T test -u -f "$dir/slapd.conf" >"$dir/slaptest.log" 2>&1 ||
	{ echo "schema.sh: slaptest refused privd.schema:" >&2; cat "$dir/slaptest.log" >&2; exit 1; }

# 3. cn=config form, added over LDAP to a running slapd
mkdir -p "$dir/slapd.d"
cat > "$dir/config.ldif" <<LDIF
dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: $dir/slapd.pid

dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: /usr/lib/ldap
olcModuleLoad: back_mdb

dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema

include: file:///etc/ldap/schema/core.ldif
include: file:///etc/ldap/schema/cosine.ldif

dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config
olcRootDN: cn=config
olcRootPW: schema-test
LDIF
/usr/sbin/slapadd -n 0 -F "$dir/slapd.d" -l "$dir/config.ldif" >"$dir/slapadd.log" 2>&1 ||
	{ echo "schema.sh: slapadd of the test cn=config failed:" >&2; cat "$dir/slapadd.log" >&2; exit 1; }
for _ in $(seq 1 20); do
	port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
	/usr/sbin/slapd -F "$dir/slapd.d" -h "ldap://127.0.0.1:$port/" 2>"$dir/slapd.log" && break
done
for _ in $(seq 1 100); do
	ldapsearch -x -H "ldap://127.0.0.1:$port/" -D cn=config -w schema-test -b cn=config -s base >/dev/null 2>&1 && break
	sleep 0.05
done
ldapadd -x -H "ldap://127.0.0.1:$port/" -D cn=config -w schema-test -f "$top/schema/privd.ldif" >"$dir/add.log" 2>&1 ||
	{ echo "schema.sh: ldapadd of privd.ldif into cn=config failed:" >&2; cat "$dir/add.log" >&2; exit 1; }
n=$(ldapsearch -x -LLL -H "ldap://127.0.0.1:$port/" -D cn=config -w schema-test \
	-b cn=schema,cn=config '(cn=*privd)' olcObjectClasses | grep -c "^olcObjectClasses:")
want=$(grep -c "^objectclass" "$top/schema/privd.schema")
[ "$n" = "$want" ] || { echo "schema.sh: expected $want object classes in cn=config, found $n" >&2; exit 1; }
echo "schema.sh: privd.schema passes slaptest; privd.ldif loaded into cn=config ($n classes)"
