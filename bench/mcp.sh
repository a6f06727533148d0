#!/usr/bin/env bash
# MCP benchmarks (MCP-1..3), against @modelcontextprotocol/server-everything (npm, pinned in
# backend/mcp/testdata/npm, installed on first use):
#   - 1,000 `echo` calls per transport (stdio, Streamable HTTP, SSE) through Cairn's full
#     path (registry + pipeline, auto-allowed) vs raw go-sdk (side by side, alternating
#     in blocks of 50) vs the official TypeScript SDK client; p50 / p99 and calls/s.
#     Goal: Cairn within 1.2x of raw go-sdk and faster than the TS client on every
#     transport.
#   - start-up (New + Start) with 0 vs 20 configured servers (5 of them dead); goal: no
#     measurable difference.
# The echo benchmark runs MCP_COUNT times (default 5), each run all paths in turn (TS SDK,
# raw go-sdk, Cairn per transport), so background load falls on all of them alike; the
# table shows the median of the runs per path. (go test -count would repeat each path
# back to back instead.)
# Env: MCP_N (default 1000 calls), MCP_COUNT (5), GOFLAGS passes through.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
n=${MCP_N:-1000}
count=${MCP_COUNT:-5}

go test -c -o "$out/mcp.test" ./backend/mcp/
: >"$out/mcp-echo.txt"
for _ in $(seq "$count"); do
	(cd backend/mcp && "../../$out/mcp.test" -test.run '^$' -test.bench '^BenchmarkEcho$' -test.benchtime "${n}x") | tee -a "$out/mcp-echo.txt"
done
go test -run '^$' -bench '^BenchmarkStartup$' -benchtime 200x ./backend/mcp/ | tee "$out/mcp-startup.txt"

# metric NAME-SUFFIX UNIT: median value of UNIT over the benchmark lines ending in NAME-SUFFIX
metric() {
	awk -v b="$1" -v m="$2" '$1 ~ b"(-[0-9]+)?$" { for (i = 1; i < NF; i++) if ($(i+1) == m) print $i }' "$3" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

missed=0
echo
printf '%-16s %-11s %10s %10s %10s %7s   %s\n' transport path p50-µs p99-µs calls/s vs-raw verdict
for tr in stdio streamable-http sse; do
	side="transport=$tr/path=interleaved"
	raw=$(metric "$side" raw-calls/s "$out/mcp-echo.txt")
	ts=$(metric "transport=$tr/path=ts-sdk" calls/s "$out/mcp-echo.txt")
	for path in cairn raw-go-sdk ts-sdk; do
		case $path in
		cairn) b=$side prefix=cairn- ;;
		raw-go-sdk) b=$side prefix=raw- ;;
		ts-sdk) b="transport=$tr/path=ts-sdk" prefix= ;;
		esac
		p50=$(metric "$b" "${prefix}p50-µs" "$out/mcp-echo.txt")
		p99=$(metric "$b" "${prefix}p99-µs" "$out/mcp-echo.txt")
		cps=$(metric "$b" "${prefix}calls/s" "$out/mcp-echo.txt")
		verdict=""
		ratio=$(awk -v c="$cps" -v r="$raw" 'BEGIN { printf "%.2fx", r / c }')
		if [ "$path" = cairn ]; then
			verdict=$(awk -v c="$cps" -v r="$raw" -v t="$ts" 'BEGIN {
				v = (c * 1.2 >= r) ? "within 1.2x of go-sdk" : "SLOWER than 1.2x go-sdk";
				v = v ((c > t) ? ", faster than TS SDK" : ", NOT faster than TS SDK"); print v }')
			case $verdict in *SLOWER* | *NOT*) missed=1 ;; esac
		fi
		printf '%-16s %-11s %10s %10s %10s %7s   %s\n' "$tr" "$path" "$p50" "$p99" "$cps" "$ratio" "$verdict"
	done
done
s0=$(metric "servers=0" p50-µs "$out/mcp-startup.txt")
s20=$(metric "servers=20" p50-µs "$out/mcp-startup.txt")
echo
echo "start-up (New + Start), p50: 0 servers ${s0} µs, 20 servers (5 dead) ${s20} µs"
if [ "$missed" = 1 ]; then
	echo "mcp: a goal was missed (see the verdicts above)" >&2
	exit 1
fi
