#!/usr/bin/env bash
# Chat benchmarks (CHAT-2), against the fake provider running as its own process so the
# CPU figures are Cairn's alone:
#   - time to first token: Cairn (send → stored → first text part on the bus) vs a raw
#     go-openai stream to the same server; goal: overhead ≤ 2 ms at p50
#   - sustained streaming with parts persisted and a subscriber applying every event;
#     goal: ≥ 5,000 tokens/s, with CPU per token
# Env: TTFT_N (default 500 sends), STREAM_N (default 10 answers), BENCH_TOKENS (20000
# tokens per answer), GOFLAGS passes through.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"

go build -o "$out/fakeopenai" ./backend/llm/llmtest/cmd/fakeopenai
rm -f "$out/fakeopenai.url"
"$out/fakeopenai" >"$out/fakeopenai.url" 2>"$out/fakeopenai.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$out/fakeopenai.url" ] && break; sleep 0.05; done
url=$(head -n1 "$out/fakeopenai.url")
[ -n "$url" ] || { echo "fakeopenai did not start" >&2; exit 1; }

export CAIRN_BENCH_OPENAI_URL="$url"
go test -run '^$' -bench '^BenchmarkTTFT$' -benchtime "${TTFT_N:-500}x" ./backend/chat/ | tee "$out/chat-ttft.txt"
go test -run '^$' -bench '^BenchmarkStreamThroughput$' -benchtime "${STREAM_N:-10}x" ./backend/chat/ | tee "$out/chat-stream.txt"

# value of metric $2 on the benchmark line of $1
metric() { awk -v m="$2" '/^Benchmark/ { for (i = 1; i < NF; i++) if ($(i+1) == m) print $i }' "$1" | tail -n1; }

raw=$(metric "$out/chat-ttft.txt" raw-p50-µs)
cairn=$(metric "$out/chat-ttft.txt" cairn-p50-µs)
over=$(metric "$out/chat-ttft.txt" overhead-p50-µs)
over90=$(metric "$out/chat-ttft.txt" overhead-p90-µs)
tps=$(metric "$out/chat-stream.txt" tokens/s)
cpu=$(metric "$out/chat-stream.txt" cpu-ns/token)
evs=$(metric "$out/chat-stream.txt" events/answer)
verdict() { awk -v v="$1" -v g="$2" -v op="$3" 'BEGIN { ok = (op == "le") ? (v <= g) : (v >= g); print ok ? "ok" : "MISSED" }'; }

echo
echo "Chat benchmarks ($(nproc) CPUs, $(go env GOOS)/$(go env GOARCH), fake provider in its own process)"
printf '| %-42s | %14s | %-12s | %-6s |\n' "measure" "value" "goal" ""
printf '|%s|%s|%s|%s|\n' "--------------------------------------------" "----------------" "--------------" "--------"
printf '| %-42s | %11s µs | %-12s | %-6s |\n' "TTFT raw go-openai, p50" "$raw" "" ""
printf '| %-42s | %11s µs | %-12s | %-6s |\n' "TTFT Cairn (stored + on the bus), p50" "$cairn" "" ""
printf '| %-42s | %11s µs | %-12s | %-6s |\n' "TTFT overhead, p50" "$over" "<= 2000 us" "$(verdict "$over" 2000 le)"
printf '| %-42s | %11s µs | %-12s | %-6s |\n' "TTFT overhead, p90" "$over90" "" ""
printf '| %-42s | %11s /s | %-12s | %-6s |\n' "streaming tokens/s (persisted + window)" "${tps%.*}" ">= 5000 /s" "$(verdict "$tps" 5000 ge)"
printf '| %-42s | %11s ns | %-12s | %-6s |\n' "CPU per token (Cairn process)" "${cpu%.*}" "" ""
printf '| %-42s | %14s | %-12s | %-6s |\n' "events per answer (${BENCH_TOKENS:-20000} tokens)" "$evs" "" ""
