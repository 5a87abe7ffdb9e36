#!/usr/bin/env bash
# run-dev.sh PORT - `make run`: a private slapd with the demo data and privd
# in the foreground on 127.0.0.1:PORT. Ctrl-C or SIGTERM stops both and
# removes the temporary directory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
port=${1:-8080}
dir=$(mktemp -d "${TMPDIR:-/tmp}/privd-run.XXXXXX")
privd_pid=

cleanup() {
	trap - EXIT INT TERM
	[ -n "$privd_pid" ] && kill "$privd_pid" 2>/dev/null && wait "$privd_pid" 2>/dev/null
	"$top/deploy/slapd-dev.sh" stop "$dir" || true
	rm -rf "$dir"
	echo "privd: stopped; removed $dir" >&2
}
trap cleanup EXIT
trap 'exit 0' INT TERM

ldap_port=$("$top/deploy/slapd-dev.sh" start "$dir")
uri="ldap://127.0.0.1:$ldap_port/"
echo "privd: private slapd at $uri (data in $dir)" >&2
"$top/server/privd" -c "$top/config/dev.yaml" -L "$uri" --import "$top/config/demo.yaml"
"$top/server/privd" -c "$top/config/dev.yaml" -L "$uri" -l "127.0.0.1:$port" &
privd_pid=$!
echo "privd: serving http://127.0.0.1:$port/  (try: curl -H 'Authorization: Bearer dev-read-4d1c8e27b9' http://127.0.0.1:$port/v1/accounts/jdoe/privileges)"
echo "privd: the web page: http://127.0.0.1:$port/ui/  (jdoe / jdoe-dev-secret; mwhite / hos-dev-secret administers)"
echo "privd: Ctrl-C stops privd and slapd"
wait "$privd_pid"
