#!/usr/bin/env bash
# Installs Stoplight Prism (the OpenAPI mock server the e2e test drives)
# into .cache/npm/prism, a folder git ignores, and prints the path of its
# binary. Idempotent: an existing install of the pinned version is kept.
#
# Usage: bash .ci/install-prism.sh        # then INTENTSRV_PRISM=<printed path>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm-retry.sh"

PRISM_VERSION="${PRISM_VERSION:-5.16.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/npm/prism"
bin="$dir/node_modules/.bin/prism"

if [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -qx "$PRISM_VERSION"; then
  echo "$bin"
  exit 0
fi

mkdir -p "$dir"
if [[ ! -f "$dir/package.json" ]]; then
  printf '{"name":"intentsrv-prism","private":true}\n' >"$dir/package.json"
fi
npm_retry 300 install --prefix "$dir" --no-audit --no-fund --loglevel=error \
  "@stoplight/prism-cli@$PRISM_VERSION"
"$bin" --version >&2
echo "$bin"
