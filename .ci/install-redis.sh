#!/usr/bin/env bash
# Installs redis-server from the Debian packages (the real Redis the plan
# store tests run against) and prints the path of its binary. Tests start
# their own redis-server on a free loopback port with a temporary
# directory and stop it by PID; this script starts nothing that stays.
# Idempotent: an installed redis-server is kept.
#
# Usage: bash .ci/install-redis.sh        # then INTENTSRV_REDIS=<printed path>
set -euo pipefail

if ! command -v redis-server >/dev/null; then
  command -v apt-get >/dev/null || { echo "redis-server is missing and apt-get is not available: install Redis 6.2 or later" >&2; exit 1; }
  as_root=()
  [[ "$(id -u)" == 0 ]] || as_root=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  if ! "${as_root[@]}" apt-get install -y --no-install-recommends redis-server >&2; then
    "${as_root[@]}" apt-get update >&2
    "${as_root[@]}" apt-get install -y --no-install-recommends redis-server >&2
  fi
fi
bin="$(command -v redis-server)"
"$bin" --version >&2
echo "$bin"
