#!/usr/bin/env bash
# Web search cache hit latency (backend/websearch): a repeated search answered from the
# SQLite cache through the real settings service (goal: p50 <= 1 ms).
# Usage: bench/websearch.sh [count]   (searches timed, default 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-5000}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'BenchmarkCacheHit' -benchtime="${n}x" ./backend/websearch/ >"$out"
if ! grep -q '^BenchmarkCacheHit' "$out"; then
  cat "$out" >&2
  echo "no benchmark ran" >&2
  exit 1
fi
awk '
function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
/^BenchmarkCacheHit/ {
  p50 = metric("p50-ms"); p99 = metric("p99-ms"); mean = metric("ns/op") / 1e6
  printf "| cache hit (%s searches) | p50 %.3f ms | p99 %.3f ms, mean %.3f ms | %s |\n", $2, p50, p99, mean, (p50 <= 1 ? "p50 <= 1 ms: met" : "p50 <= 1 ms: MISSED")
  if (p50 > 1) exit 1
}' "$out"
