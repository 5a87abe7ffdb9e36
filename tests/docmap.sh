#!/bin/sh
# docmap.sh - doc/server.md is the map of server/: every .c file there must be
# named in it (as `file.c`), so a new file cannot be left off the map.
set -eu
cd "$(dirname "$0")/.."
missing=
for f in server/*.c; do
	b=$(basename "$f")
	grep -qF "\`$b\`" doc/server.md || missing="$missing $b"
done
if [ -n "$missing" ]; then
	echo "docmap: doc/server.md does not name:$missing" >&2
	exit 1
fi
echo "docmap: doc/server.md names all $(ls server/*.c | wc -l) server files"
