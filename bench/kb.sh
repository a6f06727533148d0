#!/usr/bin/env bash
# Knowledge-base search benchmarks (backend/kb, embedding time excluded), with the goals of
# the KB issue: ingest, keyword (the in-memory index next to FTS5's bm25), vector (Cairn's int8 index next to chromem-go, sqlite-vec
# and a pure Go brute force on the same clustered 768-d vectors, recall@10 against exact
# search) and hybrid query latency, and memory for vectors.
#   bench/kb.sh [RUNS]        RUNS runs at 100k chunks (default 3), each printing its tables
#   KB_1M=1 bench/kb.sh [RUNS]  then one run at 1M chunks (KB_BENCH_DIMS=768 by default;
#                             writes about 8 GB under TMPDIR and takes 15 to 30 minutes)
# Exits non-zero when a goal is missed in the last run of a size.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

verdict() { # size metrics-line
  awk -v size="$1" '
  function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
  function row(what, v, unit, goal, ok) {
    printf "| %s | %s %s | %s | %s |\n", what, v, unit, goal, (ok ? "met" : "MISSED"); if (!ok) fail = 1
  }
  /^BenchmarkKB/ {
    big = (size == "1M")
    print "| " size " | figure | goal | |"; print "| --- | --- | --- | --- |"
    row("ingest of text into chunks + FTS", metric("ingest-s"), "s", big ? "≤ 100 s" : "≤ 10 s", metric("ingest-s") <= (big ? 100 : 10))
    row("keyword query p95", metric("keyword-p95-ms"), "ms", big ? "≤ 100 ms" : "≤ 20 ms", metric("keyword-p95-ms") <= (big ? 100 : 20))
    row("keyword query p95, long-tailed corpus", metric("keyword-zipf-p95-ms"), "ms", big ? "≤ 100 ms" : "≤ 20 ms", metric("keyword-zipf-p95-ms") <= (big ? 100 : 20))
    row("hybrid query p95, long-tailed corpus", metric("hybrid-zipf-p95-ms"), "ms", big ? "≤ 150 ms" : "≤ 30 ms", metric("hybrid-zipf-p95-ms") <= (big ? 150 : 30))
    row("vector query p95, top 10", metric("vector-p95-ms"), "ms", big ? "≤ 100 ms" : "≤ 15 ms", metric("vector-p95-ms") <= (big ? 100 : 15))
    row("vector recall@10", metric("recall@10"), "", big ? "≥ 0.95" : "1.0", metric("recall@10") >= (big ? 0.95 : 1.0))
    row("hybrid query p95", metric("hybrid-p95-ms"), "ms", big ? "≤ 150 ms" : "≤ 30 ms", metric("hybrid-p95-ms") <= (big ? 150 : 30))
    printf "| keyword CPU per query p95 (what the query costs on an idle core) | %s ms | | |\n", metric("keyword-cpu-p95-ms")
    printf "| keyword query p95 ranked by FTS5 bm25 instead, same run | %s ms | | |\n", metric("keyword-fts5-p95-ms")
    printf "| keyword index in memory: build / heap, 66-word and long-tailed corpus | %s s / %s MB, %s MB | | |\n", metric("kwindex-build-s"), metric("kwindex-MB"), metric("kwindex-zipf-MB")
    printf "| vector CPU per query p95 (both cores together) | %s ms | | |\n", metric("vector-cpu-p95-ms")
    printf "| hybrid CPU per query p95 / on the long-tailed corpus | %s / %s ms | | |\n", metric("hybrid-cpu-p95-ms"), metric("hybrid-zipf-cpu-p95-ms")
    row("memory for vectors", metric("vector-MB"), "MB", big ? "≤ 1000 MB" : "≤ 350 MB", metric("vector-MB") <= (big ? 1000 : 350))
  }
  END { exit fail }'
}

status=0
for i in $(seq 1 "$runs"); do
  echo "### run $i of $runs at 100k chunks ($(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
  go test -run '^$' -bench 'BenchmarkKB100k$' -benchtime 1x -timeout 60m ./backend/kb/ | tee "$out" | grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok\)'
  last=0; grep '^BenchmarkKB' "$out" | verdict 100k || last=1
done
status=$last
if [ "${KB_1M:-}" = 1 ]; then
  echo "### 1M chunks ($(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
  KB_BENCH_1M=1 KB_BENCH_KW="${KB_BENCH_KW:-30}" KB_BENCH_HYBRID="${KB_BENCH_HYBRID:-30}" KB_BENCH_QUERIES="${KB_BENCH_QUERIES:-20}" \
    go test -run '^$' -bench 'BenchmarkKB1M$' -benchtime 1x -timeout 120m ./backend/kb/ | tee "$out" | grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok\)'
  grep '^BenchmarkKB' "$out" | verdict 1M || status=1
fi
exit $status
