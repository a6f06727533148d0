#!/usr/bin/env bash
# Soak: an hour (or DURATION minutes) of real use, and nothing grows. Starts
# `cairn serve --debug-stats` on a fresh data directory with fakeopenai as the model,
# server-everything and server-memory (npm, pinned in backend/mcp/testdata/npm) as MCP
# servers and two tabs of one headless Chromium, drives it at a bounded rate and samples
# it every 30 s (bench/soak.mjs says what and how), then draws the series
# (bench/soakplot, gonum.org/v1/plot) into docs/soak-LABEL-*.png.
# Goals, after the warm-up (5 min, or a fifth of a shorter run): Cairn's PSS and live Go
# heap grow < 10 %; goroutines and open files back at their quiet count after each burst
# of 20 parallel answers; every deleted conversation's spill folder gone; the WAL bounded;
# the MCP servers never restarted and none left after serve stops; no event dropped.
# Prints the summary table and exits 1 when a goal is missed (2 when the run failed).
#
# Usage: bench/soak.sh [DURATION]   minutes, default 60 (`make bench` runs 5)
# Env: SOAK_LABEL (default <DURATION>min: bench/out/soak-LABEL/, docs/soak-LABEL-*.png),
#      SOAK_TOKENS (3000 tokens per streamed answer), SOAK_CYCLE_S (20: at most one cycle
#      this often), SOAK_SETTLE_S (130: the quiet at the end, past every pool's idle
#      timeout), SOAK_DEBUG=1 (a failed cycle prints the API's view of its conversation
#      and screenshots both tabs into the output folder), SOAK_SKIP_BUILD=1 (use bin/cairn and frontend/dist as they are),
#      CAIRN_BIN (another build of the CLI, e.g. beside a run that is still going).
# Needs: Go, Node, frontend/node_modules (playwright-core), Debian's /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
case $minutes in '' | *[!0-9]*) echo "soak: DURATION is a whole number of minutes, not '$minutes'" >&2; exit 2 ;; esac
label=${SOAK_LABEL:-${minutes}min}
out=bench/out/soak-$label
work=$(mktemp -d /tmp/cairn-soak-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

fail() {
  echo "soak: $1" >&2
  [ -f "${2:-}" ] && tail -30 "$2" >&2
  exit 2
}

if [ -z "${SOAK_SKIP_BUILD:-}" ]; then
  echo "soak: building the frontend and bin/cairn (make frontend cli)…" >&2
  make -s frontend cli >"$work/build.log" 2>&1 || fail "build failed" "$work/build.log"
fi
cairn_bin=${CAIRN_BIN:-$PWD/bin/cairn}
[ -x "$cairn_bin" ] || fail "no $cairn_bin (make cli)"
export CAIRN_BIN=$cairn_bin
CGO_ENABLED=0 go build -o "$work/fakeopenai" ./backend/llm/llmtest/cmd/fakeopenai >"$work/fake.log" 2>&1 ||
  fail "building fakeopenai failed" "$work/fake.log"
(cd bench/soakplot && go build -o "$work/soakplot" .) >"$work/plot-build.log" 2>&1 ||
  fail "building bench/soakplot failed" "$work/plot-build.log"

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "soak: $minutes min from $(date -u '+%H:%M UTC'), load average $load_start; progress every 30 s below" >&2
set +e
node bench/soak.mjs --minutes="$minutes" --fake="$work/fakeopenai" --out="$out" \
  --tokens="${SOAK_TOKENS:-3000}" --cycle-s="${SOAK_CYCLE_S:-20}" --settle-s="${SOAK_SETTLE_S:-130}" | tee "$out/summary.md"
code=${PIPESTATUS[0]}
set -e
echo
echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo); load average at start $load_start, at the end $(cut -d' ' -f1-3 /proc/loadavg)." | tee -a "$out/summary.md"
if [ -s "$out/soak.csv" ]; then
  warm=$(awk -v m="$minutes" 'BEGIN { w = m / 5; if (w > 5) w = 5; print w }')
  "$work/soakplot" -in "$out" -out docs -name "soak-$label" -warmup "$warm" || code=2
fi
exit "$code"
