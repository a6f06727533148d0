#!/usr/bin/env bash
# Start-up time and idle memory of Cairn, side by side with a plain Wails v2 hello-world
# built in the same run with the same pinned Wails CLI:
#   - desktop: process start → the frontend called the bound Ready method ("frontend
#     ready"), under Xvfb, for build/bin/cairn and for the hello-world;
#   - serve + Chromium: spawn of `bin/cairn serve` → body[data-ready="1"] set in a page of
#     an already running headless Chromium, against the hello-world's built frontend served
#     by bench/helloserve (the smallest Go HTTP server, spawned the same way, with a shim
#     for the Wails bridge) in the same Chromium;
#   - idle memory after 10 s: Pss and Rss summed over the app and all its child processes
#     (WebKit's web and network processes), from /proc/PID/smaps_rollup.
#   - for information, the CPU time the desktop's processes used up to frontend ready
#     (all threads, /proc/PID/task/TID/schedstat): a start-up's cost to the machine, which
#     the host's other load does not stretch the way it stretches wall time.
#   - serve + Chromium again with 20 MCP servers configured (15 server-everything over
#     stdio, 3 that hang, 2 that exit at once) against none (MCP-3: no measurable
#     difference).
# Median of 10 start-ups (after one warm-up), memory median of 5; each ratio with its 95 %
# bootstrap interval (bench/startup.mjs: ratioInterval). Goal: Cairn ≤ 1.15x.
#
# The hello-world is `wails init -t vanilla` with the smallest change that lets "ready" be
# seen, the same signal Cairn gives: app.go gains
#     func (a *App) Ready() { println("frontend ready") }
# and frontend/src/main.js imports Ready next to Greet and calls Ready() as its last line.
#
# Usage: bench/startup.sh            (env: BENCH_RUNS=10 BENCH_MEM_RUNS=5 BENCH_IDLE_S=10)
# Needs: make cli desktop (run here), Xvfb, Debian chromium, frontend/node_modules, GNU
# coreutils (sync -d, dd iflag=nocache); util-linux fincore only for the log line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${BENCH_RUNS:-10}
mem_runs=${BENCH_MEM_RUNS:-5}
idle=${BENCH_IDLE_S:-10}
mkdir -p bench/out
work=$(mktemp -d /tmp/cairn-bench-hello-XXXXXX)
xvfb=""
cleanup() {
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "startup: $1" >&2
  [ -f "${2:-}" ] && tail -40 "$2" >&2
  exit 2
}

echo "startup: building Cairn (make cli desktop)…" >&2
make -s cli desktop >"$work/cairn-build.log" 2>&1 || fail "Cairn build failed" "$work/cairn-build.log"

echo "startup: generating and building the Wails hello-world…" >&2
# `go tool wails` resolves the CLI pinned in this repository's go.mod; the hello-world is a
# module of its own (github.com/wailsapp/wails/v2 v2.9.2 from the module proxy, no replace).
go tool wails init -n hello -t vanilla -d "$work/hello" >"$work/hello-init.log" 2>&1 ||
  fail "wails init failed" "$work/hello-init.log"
wails_cli=$(go tool -n wails)
grep -q '^require github.com/wailsapp/wails/v2 v2.9.2$' "$work/hello/go.mod" || fail "hello go.mod is not on wails v2.9.2" "$work/hello/go.mod"
grep -q '^replace' "$work/hello/go.mod" && fail "hello go.mod has an active replace" "$work/hello/go.mod"
main_js="$work/hello/frontend/src/main.js"
grep -q "^import {Greet} from '../wailsjs/go/main/App';$" "$main_js" || fail "unexpected template main.js" "$main_js"
sed -i "s|^import {Greet} from '../wailsjs/go/main/App';\$|import {Greet, Ready} from '../wailsjs/go/main/App';|" "$main_js"
printf '\nReady();\n' >>"$main_js"
cat >>"$work/hello/app.go" <<'EOF'

// Ready is called by the frontend once its script ran (start-up benchmark marker).
func (a *App) Ready() { println("frontend ready") }
EOF
(cd "$work/hello" && "$wails_cli" build -tags webkit2_41) >"$work/hello-build.log" 2>&1 ||
  fail "hello-world build failed" "$work/hello-build.log"
hello="$work/hello/build/bin/hello"
[ -x "$hello" ] || fail "no $hello" "$work/hello-build.log"
CGO_ENABLED=0 go build -o "$work/helloserve" ./bench/helloserve >"$work/helloserve-build.log" 2>&1 ||
  fail "helloserve build failed" "$work/helloserve-build.log"

echo "startup: configuring 20 MCP servers (15 server-everything, 5 dead) in a data directory…" >&2
npm_dir=backend/mcp/testdata/npm
everything=$root/$npm_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$everything" ] || npm ci --prefix "$npm_dir" --no-audit --no-fund >"$work/npm.log" 2>&1 || fail "npm ci in $npm_dir failed" "$work/npm.log"
node -e '
const [ev, node] = process.argv.slice(1);
const s = {};
for (let i = 0; i < 15; i++) s[`everything-${i}`] = { command: node, args: [ev, "stdio"] };
for (let i = 0; i < 3; i++) s[`hangs-${i}`] = { command: "sleep", args: ["600"] };
for (let i = 0; i < 2; i++) s[`exits-${i}`] = { command: "sh", args: ["-c", "echo broken >&2; exit 1"] };
console.log(JSON.stringify({ mcpServers: s }));' "$everything" "$(command -v node)" >"$work/mcp20.json"
CAIRN_SECRETS=file bin/cairn --data-dir "$work/mcp-data" mcp import "$work/mcp20.json" >"$work/mcp-import.log" 2>&1 ||
  fail "cairn mcp import failed" "$work/mcp-import.log"

display=:$((200 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x860x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
[ -e "/tmp/.X11-unix/X${display#:}" ] || fail "Xvfb did not start" "$work/xvfb.log"

# The binaries come to the runs the way an installed app comes to a user's launch: read from
# disk by exec. Just built, they sit whole in the page cache as the linker wrote them (on
# kernels with large folios, in 2 MiB pieces that map whole on the first touch), and a
# process then maps, and counts in its PSS, pages it never touches. Their cached pages are
# written back and dropped once, before the warm-up run, on both sides alike.
binaries=("$hello" "$work/helloserve" "$root/build/bin/cairn" "$root/bin/cairn")
cached_kib() { { fincore --bytes --noheadings --output RES "$@" 2>/dev/null || true; } | awk '{s += $1} END {printf "%d", s / 1024}'; }
before=$(cached_kib "${binaries[@]}")
sync -d "${binaries[@]}" || fail "sync -d failed (coreutils ≥ 8.24 needed)"
for b in "${binaries[@]}"; do dd if="$b" iflag=nocache count=0 status=none || fail "dropping the page cache of $b failed"; done
echo "startup: page cache of the four binaries dropped: ${before} KiB → $(cached_kib "${binaries[@]}") KiB" >&2

echo "startup: measuring ($runs runs, memory in $mem_runs after ${idle} s idle; progress below)…" >&2
set +e
node bench/startup.mjs --runs="$runs" --mem-runs="$mem_runs" --idle="$idle" --display="$display" \
  --hello="$hello" --hello-dist="$work/hello/frontend/dist" --helloserve="$work/helloserve" --desktop="$root/build/bin/cairn" --cli="$root/bin/cairn" \
  --mcp-data="$work/mcp-data" --json="$root/bench/out/startup.json" | tee bench/out/startup.md
code=${PIPESTATUS[0]}
set -e
# startup.mjs stops every process tree it started; the hello-world's path is unique to this run.
left=$(pgrep -f "$work/hello/build/bin/hello" || true)
[ -z "$left" ] || { echo "startup: processes left behind: $left" >&2; code=2; }
exit "$code"
