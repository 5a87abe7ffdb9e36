#!/bin/sh
# layers.sh - the shape doc/server.md promises of server/: no file over 1,000
# lines, and no circle of includes between its modules (a module is a .c
# file and the header next to it): a file that includes another includes
# only what sits below it.
set -eu
cd "$(dirname "$0")/.."
long=$(wc -l server/*.c | awk '$2 != "total" && $1 > 1000 { printf " %s (%d)", $2, $1 }')
if [ -n "$long" ]; then
	echo "layers: over 1,000 lines:$long" >&2
	exit 1
fi
python3 - <<'PY'
import glob, os, re, sys

uses = {}
for f in glob.glob("server/*.[ch]"):
    m = os.path.basename(f)[:-2]
    got = set(re.findall(r'^#include "([a-z_0-9]+)\.h"', open(f).read(), re.M))
    uses.setdefault(m, set()).update(got - {m})

# a depth-first walk that reports the first circle it closes
state, path = {}, []


def walk(m):
    state[m] = 1
    path.append(m)
    for n in sorted(uses.get(m, ())):
        if n not in uses:
            continue
        if state.get(n) == 1:
            circle = path[path.index(n):] + [n]
            sys.exit("layers: an include circle: " + " -> ".join(circle))
        if n not in state:
            walk(n)
    path.pop()
    state[m] = 2


for m in sorted(uses):
    if m not in state:
        walk(m)
print("layers: %d server modules, none over 1,000 lines, no include circle" % len(uses))
PY
