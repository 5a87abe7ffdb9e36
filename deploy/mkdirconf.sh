#!/bin/sh
# mkdirconf.sh - regenerates deploy/privd-cn-config.ldif and
# deploy/privd-slapd.conf, the examples of what privd --directory-config
# prints, for config/privd.yaml's DNs. tests/integration/install.sh checks
# that the shipped files are what privd prints, so they cannot drift.
#   deploy/mkdirconf.sh [PRIVD]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
privd=${1:-$top/server/privd}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# the example's password file is not on this machine; the DNs are what count
sed 's|^  bind_password_file: .*|  bind_password: example|' "$top/config/privd.yaml" > "$tmp"
"$privd" -c "$tmp" --directory-config ldif > "$top/deploy/privd-cn-config.ldif"
"$privd" -c "$tmp" --directory-config slapd.conf > "$top/deploy/privd-slapd.conf"
