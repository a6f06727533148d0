#!/usr/bin/env bash
# Benchmarks of the tool system (backend/tools), printed as a table:
#   - SelectActive + request assembly over 500 registered tools (goal: < 1 ms)
#   - prompt tokens of 100 MCP-like tool definitions inline vs folded (goal: >= 90% fewer)
# Usage: bench/tools.sh [count]   (count = iterations of the selection benchmark, default 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-5000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench 'BenchmarkSelectActive500' -benchtime="${n}x" -benchmem ./backend/tools/ >"$out"
go test -run '^$' -bench 'BenchmarkDefinitionTokens100' -benchtime=1x ./backend/tools/ >>"$out"

if ! grep -q '^Benchmark' "$out"; then
  cat "$out" >&2
  echo "no benchmark ran" >&2
  exit 1
fi

awk '
function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
/^BenchmarkSelectActive500\// {
  split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
  ns = metric("ns/op"); ms = ns / 1e6
  rows[++n] = sprintf("| select 500 tools: %-15s | %9.3f ms | %4d tools sent, %3d folded | %s |",
    p[2], ms, metric("tools"), metric("deferred"), (p[2] ~ /marshal/ ? "(includes encoding/json)" : (ms < 1 ? "goal < 1 ms: met" : "goal < 1 ms: MISSED")))
  if (p[2] !~ /marshal/ && ms >= 1) fail = 1
}
/^BenchmarkDefinitionTokens100/ {
  saved = metric("%-saved")
  tok = sprintf("| 100 MCP-like tools, prompt tokens | %d inline | %d folded (%.1f%% fewer) | %s |",
    metric("tokens-inline") + 0, metric("tokens-folded") + 0, saved, (saved >= 90 ? "goal >= 90%: met" : "goal >= 90%: MISSED"))
  if (saved < 90) fail = 1
}
END {
  print "| benchmark | figure | detail | verdict |"
  print "| --- | --- | --- | --- |"
  for (i = 1; i <= n; i++) print rows[i]
  print tok
  exit fail
}' "$out"
