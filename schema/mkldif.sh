#!/bin/sh
# mkldif.sh - derive privd.ldif (cn=config form) from privd.schema, so the
# two forms cannot drift apart: `schema/mkldif.sh > schema/privd.ldif`.
set -eu
src=${1:-$(dirname "$0")/privd.schema}
printf 'dn: cn=privd,cn=schema,cn=config\nobjectClass: olcSchemaConfig\ncn: privd\n'
sed -e '/^#/d' -e '/^[[:space:]]*$/d' \
    -e 's/^objectidentifier /olcObjectIdentifier: /' \
    -e 's/^attributetype /olcAttributeTypes: /' \
    -e 's/^objectclass /olcObjectClasses: /' \
    -e 's/^\t/  /' "$src"
