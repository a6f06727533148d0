#!/usr/bin/env bash
# Document parsing benchmarks (KB-2), embedding time excluded:
#   - PDF parse + chunk of a 200-page report written by ghostscript (a heading and 40
#     lines per page), default chunk size and overlap; median pages/s of DP_COUNT runs
#     (default 5). Goal: >= 300 pages/s.
#   - The PDFium fallback (WebAssembly under wazero) on 50 pages: start-up and pages/s in
#     the interpreter, compiled with an empty cache and with a filled one. Reported only.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
count=${DP_COUNT:-5}
go test -run '^$' -bench '^BenchmarkPDFParseChunk$' -benchtime 5x -count "$count" ./backend/docparse/ | tee "$out/docparse-pdf.txt"
go test -run '^$' -bench '^BenchmarkFallback$' -benchtime 1x ./backend/docparse/pdfium/ | tee "$out/docparse-pdfium.txt"
median=$(awk '/^BenchmarkPDFParseChunk/ { for (i = 1; i < NF; i++) if ($(i+1) == "pages/s") print $i }' "$out/docparse-pdf.txt" |
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo
echo "PDF parse + chunk: median ${median} pages/s (goal >= 300)"
awk -v m="$median" 'BEGIN { exit !(m >= 300) }' || { echo "docparse: goal missed" >&2; exit 1; }
