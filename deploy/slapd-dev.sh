#!/usr/bin/env bash
# slapd-dev.sh - a private slapd on loopback for `make run` and the tests:
# no root, no system configuration touched, everything in one directory.
#
#   slapd-dev.sh start DIR [PORT]   start (a free port when PORT is empty),
#                                   load deploy/base.ldif, write DIR/port
#   slapd-dev.sh stop DIR           stop it (the directory is left alone)
#   slapd-dev.sh restart DIR        start again on the same port and data
#   slapd-dev.sh init DIR [LDIF...]  slapadd base.ldif and the files, then start
#   slapd-dev.sh start-consumer DIR PROVIDER_PORT [PORT]
#                                   a read-only replica of that slapd (syncrepl;
#                                   with DELTA=1, delta-syncrepl from a provider
#                                   of `pair`)
#   slapd-dev.sh pair DIR           two providers in multi-provider replication by
#                                   delta-syncrepl (accesslog), in DIR/1 and DIR/2;
#                                   loads base.ldif, prints both ports
#   slapd-dev.sh conf DIR           only write DIR/slapd.conf, for a test that
#                                   starts slapd itself (ACCESSLOG, SERVER_ID,
#                                   PEER, PEER_ID, PEER_HOST as `pair` sets them)
#
# Suffix dc=example,dc=edu, root cn=admin,dc=example,dc=edu / secret.
# privd binds as cn=privd,dc=example,dc=edu / privd-dev-secret. The ACLs let
# privd and mwhite (hos-dev-secret, the demo's administrator) write; other
# people (jdoe / jdoe-dev-secret) only read. With SLAPD_TLS_CERT and
# SLAPD_TLS_KEY set, the listener offers StartTLS with that certificate.
# MAXSIZE: the main database's map size in bytes (1 GiB; make bench-1m's
# million accounts need more).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|restart DIR [PORT]" >&2; exit 2; }
SLAPD=${SLAPD:-/usr/sbin/slapd}

port_free() {
	# a refused connection means nobody listens there
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# SLAPD_TLS_CERT and SLAPD_TLS_KEY (PEM files): StartTLS on the listener
tls_conf() {
	if [ -n "${SLAPD_TLS_CERT:-}" ]; then
		printf 'TLSCertificateFile %s\nTLSCertificateKeyFile %s\n' \
			"$SLAPD_TLS_CERT" "$SLAPD_TLS_KEY"
	fi
}

# ACCESSLOG=1: log successful writes to cn=accesslog (delta-syncrepl's source)
accesslog_module() { [ -z "${ACCESSLOG:-}" ] || printf 'moduleload accesslog\n'; }
server_id() { [ -z "${SERVER_ID:-}" ] || printf 'serverID %s\n' "$SERVER_ID"; }
accesslog_db() {
	[ -n "${ACCESSLOG:-}" ] || return 0
	mkdir -p "$dir/accesslog"
	cat <<LOG
database mdb
suffix "cn=accesslog"
rootdn "cn=accesslog"
directory $dir/accesslog
maxsize 1073741824
index default eq
index entryCSN,objectClass,reqEnd,reqResult,reqStart,reqDN
access to * by dn.exact="cn=admin,dc=example,dc=edu" read by * none
overlay syncprov
syncprov-nopresent TRUE
syncprov-reloadhint TRUE

LOG
}
accesslog_overlay() {
	[ -n "${ACCESSLOG:-}" ] || return 0
	printf 'overlay accesslog\nlogdb cn=accesslog\nlogops writes\nlogsuccess TRUE\n'
	printf 'logpurge 07+00:00 01+00:00\n'
}

# syncprov as slapd-multiprovider.conf sets it (the reasons are there), with
# contextCSN checkpointed every minute rather than every ten
write_conf() {
	mkdir -p "$dir/db"
	cat > "$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
include $top/schema/privd.schema
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload syncprov
$(accesslog_module)
$(server_id)
sizelimit unlimited
timelimit unlimited
# published groups hold thousands of members: kept sorted, a value is
# found by a binary search, not compared with every other
sortvals member
loglevel none
$(tls_conf)

$(accesslog_db)
database mdb
suffix "dc=example,dc=edu"
rootdn "cn=admin,dc=example,dc=edu"
rootpw secret
directory $dir/db
maxsize ${MAXSIZE:-1073741824}
index objectClass eq
index uid eq
index cn eq
index privMembership eq
index privRequest eq
index privHold pres
index privSession pres
index privImportState eq
index entryUUID eq
index entryCSN eq
index member eq
access to attrs=userPassword
	by self write
	by anonymous auth
	by * none
# privd's ACLs as privd --directory-config prints them, mwhite in place of
# the administrators' group: a person reads only their own usage, ledger
# and memberships; pools' usage and import records only privd and mwhite.
# privd's own reads are decided before the usage rule's regular expression
# (doc/server.md, Sizing); its people rule grants write here, as the last
# rule below does, since the dev directory lets privd create people
access to dn.subtree="ou=privileges,dc=example,dc=edu"
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by * break
# the published entitlements: read by any bound consumer (SSSD, nslcd,
# Apache, the IdP), written by privd alone
access to dn.subtree="ou=entitlements,dc=example,dc=edu"
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by users read
	by * none
access to dn.subtree="ou=people,dc=example,dc=edu" attrs=privEntitlement
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by users read
	by * none
access to dn.subtree="ou=people,dc=example,dc=edu" attrs=privMembership,privMembershipDates
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by self read
	by * none
access to dn.subtree="ou=people,dc=example,dc=edu" attrs=objectClass
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by * break
access to dn.subtree="ou=people,dc=example,dc=edu" attrs=entry,uid,entryCSN
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by * break
access to dn.regex="^(.+,)?uid=([^,]+),ou=usage,ou=privileges,dc=example,dc=edu$"
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by dn.exact,expand="uid=\$2,ou=people,dc=example,dc=edu" read
	by * none
access to dn.subtree="ou=usage,ou=privileges,dc=example,dc=edu"
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by * none
access to dn.subtree="ou=imports,ou=privileges,dc=example,dc=edu"
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by * none
access to *
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by users read
	by * none
$(consumer_conf)
$(peer_conf)
overlay syncprov
syncprov-checkpoint 100 1
syncprov-sessionlog 10000
$(accesslog_overlay)
CONF
}

# delta-syncrepl: what the provider's accesslog says, successful writes only
delta_conf() {
	printf '  logbase="cn=accesslog" logfilter="(&(objectClass=auditWriteObject)(reqResult=0))"\n'
	printf '  syncdata=accesslog\n'
}

# PEER (a port; on PEER_HOST, loopback by default): the other provider of
# a multi-provider pair
peer_conf() {
	[ -n "${PEER:-}" ] || return 0
	printf 'syncrepl rid=%03d provider=ldap://%s:%s/ bindmethod=simple\n' \
		"$PEER_ID" "${PEER_HOST:-127.0.0.1}" "$PEER"
	printf '  binddn="cn=admin,dc=example,dc=edu" credentials=secret\n'
	printf '  searchbase="dc=example,dc=edu" type=refreshAndPersist retry="1 +"\n'
	delta_conf
	printf 'multiprovider on\n'
}

# PROVIDER (a port): this slapd is a read-only replica of that one, by syncrepl
consumer_conf() {
	if [ -n "${PROVIDER:-}" ]; then
		printf 'syncrepl rid=001 provider=ldap://127.0.0.1:%s/ bindmethod=simple\n' "$PROVIDER"
		printf '  binddn="cn=admin,dc=example,dc=edu" credentials=secret\n'
		printf '  searchbase="dc=example,dc=edu" type=refreshAndPersist retry="1 +"\n'
		[ -z "${DELTA:-}" ] || delta_conf
		printf 'updateref ldap://127.0.0.1:%s/\n' "$PROVIDER"
	fi
}

start_on() {
	"$SLAPD" -f "$dir/slapd.conf" -h "ldap://127.0.0.1:$1/" 2>"$dir/slapd.log" || return 1
	i=0
	while [ $i -lt 100 ]; do
		port_free "$1" || return 0
		i=$((i + 1)); sleep 0.05
	done
	return 1
}

case $cmd in
conf)
	mkdir -p "$dir"
	write_conf
	;;
start|start-consumer)
	[ "$cmd" = start-consumer ] && { PROVIDER=${3:?start-consumer DIR PROVIDER_PORT}; shift; }
	mkdir -p "$dir"
	write_conf
	port=${3:-}
	if [ -n "$port" ]; then
		start_on "$port" || { echo "slapd-dev: cannot start slapd on port $port (see $dir/slapd.log)" >&2; exit 1; }
	else
		tries=0
		while :; do
			port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
			if port_free "$port" && start_on "$port"; then break; fi
			tries=$((tries + 1))
			[ $tries -lt 20 ] || { echo "slapd-dev: no free port found (see $dir/slapd.log)" >&2; exit 1; }
		done
	fi
	echo "$port" > "$dir/port"
	[ -n "${PROVIDER:-}" ] && { echo "$port"; exit 0; }
	ldapadd -x -H "ldap://127.0.0.1:$port/" -D cn=admin,dc=example,dc=edu -w secret \
		-f "$here/base.ldif" > "$dir/base.log" 2>&1 ||
		{ echo "slapd-dev: loading base.ldif failed:" >&2; cat "$dir/base.log" >&2; exit 1; }
	echo "$port"
	;;
pair)
	# two providers, each replicating the other's accesslog
	top_dir=$dir
	pick() {
		while :; do
			p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
			port_free "$p" && [ "$p" != "${1:-}" ] && { echo "$p"; return; }
		done
	}
	p1=$(pick)
	p2=$(pick "$p1")
	for i in 1 2; do
		dir=$top_dir/$i
		mkdir -p "$dir"
		if [ $i = 1 ]; then me=$p1 peer=$p2; else me=$p2 peer=$p1; fi
		ACCESSLOG=1 SERVER_ID=$i PEER=$peer PEER_ID=$((3 - i)) write_conf
		echo "$me" > "$dir/port"
		start_on "$me" || { echo "slapd-dev: cannot start provider $i (see $dir/slapd.log)" >&2; exit 1; }
	done
	ldapadd -x -H "ldap://127.0.0.1:$p1/" -D cn=admin,dc=example,dc=edu -w secret \
		-f "$here/base.ldif" > "$top_dir/base.log" 2>&1 ||
		{ echo "slapd-dev: loading base.ldif failed:" >&2; cat "$top_dir/base.log" >&2; exit 1; }
	i=0
	until ldapsearch -x -H "ldap://127.0.0.1:$p2/" -D cn=admin,dc=example,dc=edu -w secret \
	    -b "ou=privileges,dc=example,dc=edu" -s base 1.1 > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "slapd-dev: provider 2 did not replicate base.ldif" >&2; exit 1; }
		sleep 0.05
	done
	echo "$p1 $p2"
	;;
init)
	# offline: slapadd base.ldif and the LDIF files given, then start (benchmarks)
	shift 2
	mkdir -p "$dir"
	write_conf
	/usr/sbin/slapadd -q -f "$dir/slapd.conf" -l "$here/base.ldif" > "$dir/slapadd.log" 2>&1
	for f in "$@"; do
		/usr/sbin/slapadd -q -f "$dir/slapd.conf" -l "$f" >> "$dir/slapadd.log" 2>&1 ||
			{ echo "slapd-dev: slapadd $f failed:" >&2; tail -5 "$dir/slapadd.log" >&2; exit 1; }
	done
	tries=0
	while :; do
		port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
		if port_free "$port" && start_on "$port"; then break; fi
		tries=$((tries + 1))
		[ $tries -lt 20 ] || { echo "slapd-dev: no free port found" >&2; exit 1; }
	done
	echo "$port" > "$dir/port"
	echo "$port"
	;;
restart)
	port=$(cat "$dir/port")
	start_on "$port" || { echo "slapd-dev: cannot restart slapd on port $port" >&2; exit 1; }
	;;
stop)
	if [ -f "$dir/slapd.pid" ]; then
		pid=$(cat "$dir/slapd.pid")
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$dir/slapd.pid"
	fi
	;;
*)
	echo "usage: $0 start|start-consumer|stop|restart DIR [PORT]" >&2; exit 2 ;;
esac
