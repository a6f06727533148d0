#!/usr/bin/env bash
# Runs every benchmark script in bench/ (tools.sh, chat.sh, startup.sh, … whichever exist),
# after a description of the machine, and keeps each one's output in bench/out/<name>.txt.
# Exits non-zero when any script did (a missed goal or a failure); all of them still run.
# Usage: bench/run.sh [NAME…]   (e.g. bench/run.sh startup; soak runs 5 minutes here, SOAK_MINUTES)
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out

machine() {
  echo "## Machine"
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') (family $(lscpu | awk -F: '/^CPU family/ {gsub(/ /,"",$2); print $2}'), model $(lscpu | awk -F: '/^Model:/ {gsub(/ /,"",$2); print $2}')), $(awk -F: '/cpu MHz/ {printf "%.0f MHz", $2; exit}' /proc/cpuinfo)$(lscpu | awk -F: '/Hypervisor vendor/ {gsub(/ /,"",$2); print ", " $2 " guest"}'), nproc $(nproc) |"
  echo "| commit | $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes') |"
  echo "| memory | $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) |"
  echo "| OS | $( . /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r) |"
  echo "| Go | $(go version | awk '{print $3}') |"
  echo "| Node | $(node --version 2>/dev/null || echo none) |"
  echo "| Chromium | $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}' || echo none) |"
  echo "| WebKitGTK | $(pkg-config --modversion webkit2gtk-4.1 2>/dev/null || echo none) |"
  echo "| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |"
  echo
}

machine | tee bench/out/machine.md
status=0
for script in bench/*.sh; do
  name=$(basename "$script" .sh)
  [ "$name" = run ] && continue
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  echo "## $name"
  echo
  args=()
  [ "$name" = soak ] && args=("${SOAK_MINUTES:-5}") # the hour is bench/soak.sh with no argument
  if bash "$script" "${args[@]}" 2>&1 | tee "bench/out/$name.txt"; then
    :
  else
    echo "bench: $name exited non-zero" >&2
    status=1
  fi
  echo
done
exit $status
