#!/usr/bin/env bash
# Cairn's page reader against the pipeline other desktop clients use (jsdom +
# @mozilla/readability + turndown with its GFM plugin, in Node), side by side on the same
# generated pages (a 2 MB article, a 200 KB news page, a table-heavy docs page), each side
# for the same time on each page in three alternating rounds (medians reported). Prints
# pages per second, the text overlap of the two outputs and how much of each page's main
# text each kept. Goal: Cairn ≥ 2× the peers' pages per second. Also the guard's cost per
# request (BenchmarkGuard).
# jsdom 27 is the newest that runs on Node 20 (31 needs Node 22).
# The peers' packages are installed from npm into bench/.webfetch-node (not committed).
# Usage: bench/webfetch.sh [seconds per page and side, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-5}"
mods=bench/.webfetch-node
if [ "$(node -p "require('./$mods/node_modules/jsdom/package.json').version" 2>/dev/null)" != 27.4.0 ]; then
  mkdir -p "$mods"
  [ -f "$mods/package.json" ] || echo '{"private": true}' >"$mods/package.json"
  npm install --prefix "$mods" --no-audit --no-fund --loglevel=error \
    jsdom@27.4.0 @mozilla/readability@0.6.0 turndown@7.2.5 turndown-plugin-gfm@1.0.2 >&2
fi
echo "peers: jsdom $(node -p "require('./$mods/node_modules/jsdom/package.json').version"), @mozilla/readability $(node -p "require('./$mods/node_modules/@mozilla/readability/package.json').version"), turndown $(node -p "require('./$mods/node_modules/turndown/package.json').version"); node $(node --version)"
echo
status=0
go run ./bench/webfetch -seconds "$secs" -modules "$mods" || status=1
echo
go test -run '^$' -bench 'BenchmarkGuard$' -benchtime=20000x ./backend/netguard/ |
  awk '/^BenchmarkGuard/ { printf "| guard, per request (resolve from a table, check 2 addresses) | %.1f µs |\n", $3 / 1000 }'
exit $status
