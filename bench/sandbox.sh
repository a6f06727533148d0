#!/usr/bin/env bash
# Sandbox overhead, side by side in one run (p50 of 30 each): a plain exec of `true`
# against the sandboxed one at the strong and the reduced level (goal: <= 15 ms p50
# overhead), and a plain read of a 1 MB file against the sandbox's read operation (the
# helper re-executed under the policy, cat -n formatting included). Then where a
# sandboxed `true` spends its time (BenchmarkStartPhases: each step of start and Wait,
# and bubblewrap alone on the same mounts). Reported, not enforced: on a loaded machine
# process starts dominate (see docs/BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go test -run '^$' -bench '^(BenchmarkOverhead|BenchmarkStartPhases)$' -benchtime 1x ./backend/sandbox/confine/ | tee bench/out/sandbox.txt
