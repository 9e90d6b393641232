#!/usr/bin/env bash
# Installs one of the reference MCP servers the upstream e2e tests front
# (everything, filesystem, memory; pinned versions below) into
# .cache/npm/server-NAME, a folder git ignores, and prints the path of its
# entry script (run it with node). Idempotent: an existing install of the
# pinned version is kept.
#
# Usage: bash .ci/install-mcp-server.sh everything   # then INTENTSRV_SERVER_EVERYTHING=<printed path>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm-retry.sh"

name="${1:?usage: install-mcp-server.sh everything|filesystem|memory}"
case "$name" in
  everything) version="${EVERYTHING_VERSION:-2026.8.31}" ;;
  filesystem) version="${FILESYSTEM_VERSION:-2026.8.31}" ;;
  memory) version="${MEMORY_VERSION:-2026.8.31}" ;;
  *) echo "install-mcp-server.sh: unknown server $name (everything, filesystem or memory)" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/npm/server-$name"
pkg="$dir/node_modules/@modelcontextprotocol/server-$name"

installed() {
  [[ -f "$pkg/package.json" ]] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' "$pkg/package.json" "$version"
}

entry() {
  node -e '
const p = require(process.argv[1]);
const b = typeof p.bin === "string" ? p.bin : Object.values(p.bin || {})[0];
if (!b) { console.error(p.name + ": package.json names no bin"); process.exit(1); }
console.log(require("path").resolve(process.argv[2], b));
' "$pkg/package.json" "$pkg"
}

if ! installed; then
  mkdir -p "$dir"
  if [[ ! -f "$dir/package.json" ]]; then
    printf '{"name":"intentsrv-server-%s","private":true}\n' "$name" >"$dir/package.json"
  fi
  npm_retry 300 install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-$name@$version"
  installed || { echo "server-$name $version did not install" >&2; exit 1; }
fi
bin="$(entry)"
[[ -f "$bin" ]] || { echo "server-$name entry $bin is missing" >&2; exit 1; }
echo "$bin"
