#!/usr/bin/env bash
# Fetches GitHub's REST API description (the npm package @octokit/openapi,
# pinned) and prints the path of api.github.com.json, for the routing test
# over a real catalog (router/github_quality_test.go). Only that file is
# kept, in .cache/npm/github, a folder git ignores. Idempotent.
#
# Usage: bash .ci/install-github-spec.sh   # then INTENTSRV_GITHUB_SPEC=<printed path>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/npm-retry.sh"

VERSION="${OCTOKIT_OPENAPI_VERSION:-23.0.2}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.cache/npm/github"
spec="$dir/api.github.com-$VERSION.json"

if [[ -s "$spec" ]]; then
  echo "$spec"
  exit 0
fi
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm_retry 300 pack --silent "@octokit/openapi@$VERSION")
tar -xzf "$work"/octokit-openapi-*.tgz -C "$work" package/generated/api.github.com.json
mv "$work/package/generated/api.github.com.json" "$spec"
echo "$spec"
