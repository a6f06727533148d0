#!/usr/bin/env bash
# Prompt cost of one chat request with every npm MCP server enabled: request bytes and
# o200k_base tokens, and the tool definitions' tokens and share of the window, with
# nothing folded, with folding before approval-gated tools folded, with folding now, and
# with chat.foldAllTools (backend/service BenchmarkPromptCost, real servers over stdio,
# the request caught by a local OpenAI-wire server).
# The servers are the ones in backend/mcp/testdata/npm plus the popular ones pinned in
# bench/prompt-servers/package.json, installed into bench/out/mcp-npm (npm, scripts off:
# no browser is downloaded) unless BENCH_NO_INSTALL=1. A server that does not start (one
# that needs a real account) is left out; the log names it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
npmdir=$out/mcp-npm
mkdir -p "$npmdir"
if [ "${BENCH_NO_INSTALL:-}" != 1 ]; then
	cp bench/prompt-servers/package.json "$npmdir/package.json"
	(cd "$npmdir" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --ignore-scripts >/dev/null) ||
		echo "prompt.sh: npm install of the extra servers failed; measuring the installed ones" >&2
fi
CAIRN_BENCH_NPM="$PWD/$npmdir" go test -run '^$' -bench '^BenchmarkPromptCost$' -benchtime 1x -v ./backend/service/ >"$out/prompt-raw.txt" 2>&1 || {
	cat "$out/prompt-raw.txt" >&2
	exit 1
}
grep -E 'server .*: [0-9]+ tools|did not start' "$out/prompt-raw.txt" | sed 's/^ *promptcost_bench_test.go:[0-9]*: */  /' || true
echo
awk '
function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
/^BenchmarkPromptCost\// && /bytes\/req/ {
	split($1, p, "/"); win = p[2]; sub(/^window=/, "", win); c = p[3]; sub(/-[0-9]+$/, "", c)
	w = (win == "128k") ? 128000 : 32768
	if (!hdr++) {
		printf "%d servers, %d MCP tools registered\n\n", metric("servers"), metric("tools-registered")
		printf "| %-16s | %-6s | %10s | %13s | %14s | %16s | %14s |\n", "case", "window", "tools sent", "request bytes", "request tokens", "tool-def tokens", "share of window"
		printf "| %-16s | %-6s | %10s | %13s | %14s | %16s | %14s |\n", "---", "---", "---:", "---:", "---:", "---:", "---:"
	}
	share = 100 * metric("tool-tokens") / w
	printf "| %-16s | %-6s | %10d | %13d | %14d | %16d | %13.1f%% |\n", c, win, metric("tools-sent"), metric("bytes/req"), metric("tokens/req"), metric("tool-tokens"), share
	if (c == "folding-now" && share > 25) missed = 1
}
END {
	print ""
	if (missed) { print "goal (folding now: tool definitions within 25% of the window, chat.toolContextShare): MISSED"; exit 1 }
	print "goal (folding now: tool definitions within 25% of the window, chat.toolContextShare): met"
}' "$out/prompt-raw.txt"
