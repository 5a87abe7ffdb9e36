#!/usr/bin/env bash
# check.sh ANSWERS - the API contract: doc/openapi.yaml passes Redocly's lint
# (recommended-strict, redocly.yaml), and every answer the integration tests
# recorded in ANSWERS (PRIVD_API_RECORD) validates against it (validate.mjs,
# ajv). The npm packages come from package-lock.json, once per lock file.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fail() { echo "openapi: $*" >&2; exit 1; }
[ $# = 1 ] || fail "usage: check.sh ANSWERS.jsonl"
[ -s "$1" ] || fail "no answers recorded in $1"
mkdir -p "$top/build"
command -v node >/dev/null || fail "node is missing (make deps installs nodejs)"
stamp=$here/node_modules/.privd-lock
if ! cmp -s "$here/package-lock.json" "$stamp" 2>/dev/null; then
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci in tests/openapi failed"
	cp "$here/package-lock.json" "$stamp"
fi
(cd "$here" && npx --no-install redocly lint --config redocly.yaml "$top/doc/openapi.yaml") \
	> "$top/build/openapi-lint.log" 2>&1 ||
	fail "redocly lint: $(grep -B2 -A10 -E 'error|Error' "$top/build/openapi-lint.log" | head -40)"
node "$here/validate.mjs" "$top/doc/openapi.yaml" "$1"
