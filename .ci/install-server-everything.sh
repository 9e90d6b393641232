#!/usr/bin/env bash
# Installs @modelcontextprotocol/server-everything (the reference MCP server
# the upstream e2e tests front) into .cache/npm/server-everything, a folder
# git ignores, and prints the path of its entry script (run it with node;
# "stdio" or "streamableHttp" as its argument picks the transport).
# Idempotent: an existing install of the pinned version is kept.
#
# Usage: bash .ci/install-server-everything.sh   # then INTENTSRV_SERVER_EVERYTHING=<printed path>
set -euo pipefail

EVERYTHING_VERSION="${EVERYTHING_VERSION:-2026.8.31}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/npm/server-everything"
pkg="$dir/node_modules/@modelcontextprotocol/server-everything"

installed() {
  [[ -f "$pkg/package.json" ]] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' "$pkg/package.json" "$EVERYTHING_VERSION"
}

entry() {
  node -e '
const p = require(process.argv[1]);
const b = typeof p.bin === "string" ? p.bin : Object.values(p.bin || {})[0];
if (!b) { console.error("server-everything: package.json names no bin"); process.exit(1); }
console.log(require("path").resolve(process.argv[2], b));
' "$pkg/package.json" "$pkg"
}

if ! installed; then
  mkdir -p "$dir"
  if [[ ! -f "$dir/package.json" ]]; then
    printf '{"name":"intentsrv-server-everything","private":true}\n' >"$dir/package.json"
  fi
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" >&2
  installed || { echo "server-everything $EVERYTHING_VERSION did not install" >&2; exit 1; }
fi
bin="$(entry)"
[[ -f "$bin" ]] || { echo "server-everything entry $bin is missing" >&2; exit 1; }
echo "$bin"
