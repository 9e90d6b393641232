# Sourced by the .ci install scripts: npm_retry runs one npm command with a
# time limit and tries it again when it fails or stalls. A registry
# connection that stays open with nothing coming once held a CI run inside
# `npm install` for ten minutes; a second try of the same install took
# seconds. Three tries, each stopped after its limit; the last failure
# fails the install script, naming the command.
#
# Usage: source .ci/npm-retry.sh; npm_retry SECONDS install --prefix DIR PKG@VERSION

npm_retry() {
  local limit="$1" try rc=0
  shift
  for try in 1 2 3; do
    timeout --kill-after=15 "$limit" npm "$@" >&2 && return 0
    rc=$?
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
      echo "npm $1: no result after ${limit}s (try $try of 3)" >&2
    else
      echo "npm $1: exit $rc (try $try of 3)" >&2
    fi
    sleep $((try * 5))
  done
  echo "npm $*: failed three times; check the network or the registry, then run the script again" >&2
  return "$rc"
}
