#!/usr/bin/env bash
# Runs the official MCP client conformance suite (npm @modelcontextprotocol/conformance,
# pinned with its Node 20 shim in backend/mcp/testdata/conformance) against Cairn's MCP
# client (cmd/cairn-mcp-conformance: backend/mcp.Manager end to end) and, in the same run
# for comparison, against go-sdk's own reference client (conformance/everything-client
# of github.com/modelcontextprotocol/go-sdk at the version in go.mod, built from the
# module cache).
#
# Usage: backend/mcp/conformance/run.sh [--no-reference] [--suite NAME]   (suite: all)
# Output: $CONFORMANCE_OUT (default <repo>/test-output/conformance): <client>/raw/ is the
# suite's report (per scenario checks.json, the client's stdout/stderr), <client>/suite.log
# its console output, <client>/summary.json the counts (summarize.mjs).
# Prints the per-scenario results of each client and ends with Cairn's check totals as
# "conformance: N passed, N failed". Exit status 0 when Cairn fails exactly the scenarios
# listed in baseline.yml (the suite's --expected-failures), 1 otherwise, 2 on a setup error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
npmdir="$root/backend/mcp/testdata/conformance"
out=${CONFORMANCE_OUT:-$root/test-output/conformance}
suite=all
reference=1
while [ $# -gt 0 ]; do
  case $1 in
    --no-reference) reference=0; shift ;;
    --suite) suite=$2; shift 2 ;;
    *) echo "usage: $0 [--no-reference] [--suite NAME]" >&2; exit 2 ;;
  esac
done

for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required (make deps installs what the tests need)" >&2; exit 2; }
done

# The pinned suite (same pattern as .ci/deps.sh: install when missing or the lock is newer).
if [ ! -d "$npmdir/node_modules" ] || [ "$npmdir/package-lock.json" -nt "$npmdir/node_modules/.package-lock.json" ]; then
  (cd "$npmdir" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi

rm -rf "$out/bin" "$out/cairn" "$out/go-sdk" "$out/scenarios.txt"
mkdir -p "$out/bin"
case $out in *" "*) echo "run.sh: the output path must not contain spaces (the suite splits --command on spaces): $out" >&2; exit 2 ;; esac

cd "$root"
export GOFLAGS=${GOFLAGS:--mod=mod}
go build -o "$out/bin/cairn-mcp-conformance" ./backend/mcp/conformance/cmd/cairn-mcp-conformance
clients=("cairn:$out/bin/cairn-mcp-conformance")
if [ "$reference" = 1 ]; then
  go build -o "$out/bin/go-sdk-everything-client" github.com/modelcontextprotocol/go-sdk/conformance/everything-client
  clients+=("go-sdk:$out/bin/go-sdk-everything-client")
fi

# node --import loads the shim that gives the suite fs.globSync on Node 20 (a no-op on 22+).
conformance=(node --import "$npmdir/node20/register.mjs" "$npmdir/node_modules/@modelcontextprotocol/conformance/dist/index.js")
version=$("${conformance[@]}" --version)
"${conformance[@]}" list --client > "$out/scenarios.txt"
echo "MCP client conformance: @modelcontextprotocol/conformance $version (node $(node --version)), suite $suite"

status=0
for entry in "${clients[@]}"; do
  name=${entry%%:*}
  bin=${entry#*:}
  mkdir -p "$out/$name/raw"
  args=(client --command "$bin" --suite "$suite" -o "$out/$name/raw")
  baseline=()
  if [ "$name" = cairn ]; then
    args+=(--expected-failures "$here/baseline.yml")
    baseline=("$here/baseline.yml")
  fi
  rc=0
  (cd "$out/$name" && "${conformance[@]}" "${args[@]}") > "$out/$name/suite.log" 2>&1 || rc=$?
  label="Cairn (cairn-mcp-conformance)"
  [ "$name" = go-sdk ] && label="go-sdk reference client (conformance/everything-client)"
  node "$here/summarize.mjs" "$label" "$out/$name/raw" "$out/scenarios.txt" "$out/$name/summary.json" "${baseline[@]}"
  if [ "$name" = cairn ] && [ "$rc" -ne 0 ]; then
    echo "  the suite's baseline check failed (exit $rc): see $out/cairn/suite.log" >&2
    status=1
  fi
done

node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).totals;
console.log(`conformance: ${s.passed} passed, ${s.failed} failed`);
' "$out/cairn/summary.json"
exit $status
