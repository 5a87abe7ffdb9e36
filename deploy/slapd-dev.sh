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
#                                   a read-only replica of that slapd (syncrepl)
#
# Suffix dc=example,dc=edu, root cn=admin,dc=example,dc=edu / secret.
# privd binds as cn=privd,dc=example,dc=edu / privd-dev-secret. The ACLs let
# privd and mwhite (hos-dev-secret, the demo's administrator) write; other
# people (jdoe / jdoe-dev-secret) only read. With SLAPD_TLS_CERT and
# SLAPD_TLS_KEY set, the listener offers StartTLS with that certificate.
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
sizelimit unlimited
timelimit unlimited
loglevel none
$(tls_conf)

database mdb
suffix "dc=example,dc=edu"
rootdn "cn=admin,dc=example,dc=edu"
rootpw secret
directory $dir/db
maxsize 1073741824
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
access to attrs=userPassword
	by self write
	by anonymous auth
	by * none
access to *
	by dn.exact="cn=privd,dc=example,dc=edu" write
	by dn.exact="uid=mwhite,ou=people,dc=example,dc=edu" write
	by users read
	by * none
$(consumer_conf)
overlay syncprov
syncprov-checkpoint 100 1
CONF
}

# PROVIDER (a port): this slapd is a read-only replica of that one, by syncrepl
consumer_conf() {
	if [ -n "${PROVIDER:-}" ]; then
		printf 'syncrepl rid=001 provider=ldap://127.0.0.1:%s/ bindmethod=simple\n' "$PROVIDER"
		printf '  binddn="cn=admin,dc=example,dc=edu" credentials=secret\n'
		printf '  searchbase="dc=example,dc=edu" type=refreshAndPersist retry="1 +"\n'
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
