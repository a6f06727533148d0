#!/usr/bin/env bash
# Desktop smoke test, three runs of the Wails build under Xvfb:
#   1. a fresh data directory: wait until the frontend called the bound Ready method (the
#      backend logs "frontend ready"), take a screenshot, quit with SIGTERM;
#   2. a data directory Cairn cannot use (a file), with a Chinese locale (LC_ALL, which
#      wins over LANG and LC_MESSAGES): the window shows
#      the start-up failure in Chinese (the bound StartupFailure logs "start-up failure
#      shown … language=zh-CN"), stderr has the same error in Chinese, screenshot, SIGTERM,
#      exit status 1.
#   3. a second launch on a data directory the first one owns: it brings the first window
#      forward (the first logs "another launch: window brought forward") and exits 0 at
#      once; the first keeps running, and `cairn doctor` names it with its one window;
#      `cairn serve` then serves the browser UI from the window's backend;
#   4. the app started while `cairn serve` owns the data directory: its window is one of
#      serve's windows (`cairn doctor` counts its event stream among serve's windows);
#      SIGTERM closes it and serve runs on; started again, it closes when serve stops
#      (exit 1, owner_gone).
#   5. beside `cairn serve`, with a session bus (a dbus-daemon of its own): a second launch
#      while the attached window is open brings that window forward and exits 0 (Wails'
#      single-instance lock of the data directory, held by the attached window); serve
#      still counts one window.
# After each: no process (app or WebKit helper) is left behind.
# SMOKE_CASES="3 4" runs only those cases (default: all).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=build/bin/cairn
out=test-output/desktop
mkdir -p "$out"
data=$(mktemp -d)
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x860x24 -nolisten tcp >"$out/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
export DISPLAY=$display CAIRN_SECRETS=file WEBKIT_DISABLE_COMPOSITING_MODE=1 LIBGL_ALWAYS_SOFTWARE=1

fail() {
  echo "desktop smoke: FAIL — $1" >&2
  [ -f "${2:-}" ] && cat "$2" >&2
  [ -n "${app:-}" ] && kill -9 "$app" 2>/dev/null
  exit 1
}

# start LOG [NAME=VALUE...] -- ARGS...: runs the app in the background ($app; env execs it,
# so the pid is the app's) with those variables added, output to LOG.
start() {
  local log=$1 vars=()
  shift
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  started=$(date +%s%N)
  env "${vars[@]}" "$bin" "$@" >"$log" 2>&1 &
  app=$!
}

# wait_for LOG PATTERN WHAT: until the log has PATTERN (or the app is gone, or 30 s).
wait_for() {
  for _ in $(seq 600); do
    grep -q "$2" "$1" && return 0
    kill -0 "$app" 2>/dev/null || break
    sleep 0.05
  done
  fail "$3" "$1"
}

screenshot() {
  sleep 1
  import -display "$display" -window root "$1" 2>/dev/null || xwd -display "$display" -root -silent | convert xwd:- "$1"
}

# stop LOG WANT_STATUS: SIGTERM; the app quits the normal way with WANT_STATUS and leaves
# no process behind.
stop() {
  local log=$1 want=$2 children code left
  children=$(pgrep -P "$app" | tr '\n' ' ')
  kill -TERM "$app"
  for _ in $(seq 100); do kill -0 "$app" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$app" 2>/dev/null && fail "the app did not quit on SIGTERM"
  wait "$app"
  code=$?
  for _ in $(seq 30); do
    live=0
    for c in $children; do kill -0 "$c" 2>/dev/null && live=1; done
    [ $live = 0 ] && break
    sleep 0.1
  done
  left=""
  for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
  left="$left $(pgrep -f "WebKit.*Process" -s 0 2>/dev/null | tr '\n' ' ')"
  if [ -n "${left// /}" ]; then
    ps -o pid,cmd -p "${left// /,}" >&2
    fail "processes left behind:$left"
  fi
  grep -q "signal received, quitting" "$log" || fail "no clean quit in the log" "$log"
  [ "$code" = "$want" ] || fail "exit status $code, want $want" "$log"
}

cases=${SMOKE_CASES:-1 2 3 4 5}
# want N: case N is to run.
want() { [[ " $cases " == *" $1 "* ]]; }
passed=0

if want 1; then
# 1. The app on a fresh data directory.
log="$out/cairn.log"
start "$log" -- --data-dir "$data/fresh"
wait_for "$log" "frontend ready" "the frontend never called Ready"
echo "desktop smoke: frontend ready after $(( ($(date +%s%N) - started) / 1000000 )) ms"
screenshot "$out/desktop.png"
stop "$log" 0
echo "desktop smoke: app ok (screenshot $out/desktop.png, no process left)"
passed=$((passed + 1))
fi

if want 2; then
# 2. A data directory that cannot be one: the failure screen, in Chinese.
log="$out/cairn-startup-failure.log"
touch "$data/not-a-directory"
start "$log" LC_ALL=zh_CN.UTF-8 -- --data-dir "$data/not-a-directory"
wait_for "$log" "start-up failure shown" "the window never showed the start-up failure"
grep -q 'start-up failure shown" code=data_dir_failed language=zh-CN' "$log" ||
  fail "the failure screen is not the data directory's, or not in Chinese" "$log"
grep -q "cairn: 无法使用数据目录 $data/not-a-directory" "$log" || fail "stderr lacks the error in Chinese" "$log"
screenshot "$out/desktop-startup-failure.png"
stop "$log" 1
echo "desktop smoke: start-up failure ok (screenshot $out/desktop-startup-failure.png, exit 1, no process left)"
passed=$((passed + 1))
fi

if want 3; then
# 3. A second launch: one backend per data directory, the first window comes forward.
log="$out/cairn-first.log"
start "$log" -- --data-dir "$data/fresh"
wait_for "$log" "frontend ready" "the first window never called Ready"
second="$out/cairn-second.log"
timeout 30 "$bin" --data-dir "$data/fresh" >"$second" 2>&1
code=$?
[ "$code" = 0 ] || fail "the second launch exited with $code, want 0" "$second"
grep -q "brought its window forward" "$second" || fail "the second launch did not hand over to the first" "$second"
wait_for "$log" "another launch: window brought forward" "the first window was not brought forward"
kill -0 "$app" 2>/dev/null || fail "the first app quit" "$log"
doctor="$out/cairn-doctor.log"
"$bin" --data-dir "$data/fresh" doctor >"$doctor" 2>&1
grep -q "the Cairn desktop app (PID $app) owns the data directory since .*; 1 window" "$doctor" ||
  fail "doctor does not name the desktop app as the owner" "$doctor"
serve_log="$out/cairn-serve-beside.log"
"$bin" --data-dir "$data/fresh" serve >"$serve_log" 2>&1 &
serve=$!
for _ in $(seq 300); do grep -q "Cairn is serving at" "$serve_log" && break; sleep 0.1; done
url=$(sed -n 's/^Cairn is serving at //p' "$serve_log")
token=${url##*token=}
base=${url%%/\?token=*}
grep -q "the Cairn desktop app (PID $app) already runs the backend" "$serve_log" ||
  { kill "$serve"; fail "serve did not attach to the desktop app's backend" "$serve_log"; }
curl -fsS -H "Authorization: Bearer $token" -X POST -d '[]' "$base/api/GetSettings" | grep -q '"values"' ||
  { kill "$serve"; fail "the browser UI of the desktop app's backend does not answer" "$serve_log"; }
kill -INT "$serve"
wait "$serve"
screenshot "$out/desktop-second-launch.png"
stop "$log" 0
echo "desktop smoke: second launch ok (it exited 0, the first window stayed, serve attached; no process left)"
passed=$((passed + 1))
fi

if want 4; then
# 4. serve owns the data directory: the app's window is one of serve's windows.
serve_log="$out/cairn-serve-owner.log"
"$bin" --data-dir "$data/fresh" serve >"$serve_log" 2>&1 &
serve=$!
trap 'kill $xvfb 2>/dev/null; kill $serve 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 300); do grep -q "Cairn is serving at" "$serve_log" && break; sleep 0.1; done
log="$out/cairn-beside-serve.log"
start "$log" -- --data-dir "$data/fresh"
wait_for "$log" "window attached to the owner's backend" "the window did not attach to serve's backend"
grep -q "cairn serve (PID $serve) runs the backend of this data directory" "$log" || fail "stderr does not name serve" "$log"
# serve logs at warn level: the window's event stream, counted by doctor, says its frontend runs.
doctor="$out/cairn-doctor-serve.log"
# windows N: doctor says serve owns the directory with N windows (polled for up to 30 s).
windows() {
  for _ in $(seq 60); do
    "$bin" --data-dir "$data/fresh" doctor >"$doctor" 2>&1
    grep -q "cairn serve (PID $serve) owns the data directory since .*; $1 window" "$doctor" && return 0
    sleep 0.5
  done
  return 1
}
windows 1 || fail "doctor does not count the desktop window as serve's" "$doctor"
echo "desktop smoke: window on serve's backend subscribed after $(( ($(date +%s%N) - started) / 1000000 )) ms"
grep -q "start-up failure shown" "$log" && fail "the window showed a failure screen" "$log"
screenshot "$out/desktop-beside-serve.png"
stop "$log" 0
kill -0 "$serve" 2>/dev/null || fail "serve quit with the window" "$serve_log"
windows 0 || fail "serve still counts the closed window" "$doctor"
# Started again, then serve stops: the window closes and says why.
log="$out/cairn-serve-gone.log"
start "$log" -- --data-dir "$data/fresh"
wait_for "$log" "window attached to the owner's backend" "the window did not attach again"
windows 1 || fail "the window started again is not serve's" "$doctor"
children=$(pgrep -P "$app" | tr '\n' ' ')
kill -INT "$serve"
wait "$serve"
for _ in $(seq 100); do kill -0 "$app" 2>/dev/null || break; sleep 0.1; done
kill -0 "$app" 2>/dev/null && fail "the window stayed open after serve stopped" "$log"
wait "$app"
code=$?
[ "$code" = 1 ] || fail "exit status $code after serve stopped, want 1" "$log"
grep -q "the owner of the data directory stopped: closing the window" "$log" || fail "no reason in the log" "$log"
grep -q "cairn: The Cairn process that owns the data directory stopped answering" "$log" || fail "stderr does not say serve went" "$log"
for _ in $(seq 50); do
  left=""
  for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
  [ -z "$left" ] && break
  sleep 0.1
done
[ -n "$left" ] && { ps -o pid,stat,cmd -p "${left// /,}" >&2; fail "processes left behind:$left"; }
echo "desktop smoke: beside serve ok (one backend: serve counts the window; it closes when serve stops, exit 1; no process left)"
passed=$((passed + 1))
fi
if want 5; then
# 5. A second launch beside serve: the attached window comes forward, no second window.
bus_info=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) || fail "no dbus-daemon"
bus_addr=$(sed -n 1p <<<"$bus_info")
bus_pid=$(sed -n 2p <<<"$bus_info")
serve_log="$out/cairn-serve-second.log"
DBUS_SESSION_BUS_ADDRESS=$bus_addr "$bin" --data-dir "$data/attached" serve >"$serve_log" 2>&1 &
serve=$!
trap 'kill $xvfb 2>/dev/null; kill $serve 2>/dev/null; kill $bus_pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 300); do grep -q "Cairn is serving at" "$serve_log" && break; sleep 0.1; done
log="$out/cairn-attached-first.log"
start "$log" DBUS_SESSION_BUS_ADDRESS="$bus_addr" NO_AT_BRIDGE=1 -- --data-dir "$data/attached"
wait_for "$log" "window attached to the owner's backend" "the first window did not attach to serve's backend"
doctor="$out/cairn-doctor-second.log"
# serve_windows N: doctor says serve owns the directory with N windows (polled for up to 30 s).
serve_windows() {
  for _ in $(seq 60); do
    "$bin" --data-dir "$data/attached" doctor >"$doctor" 2>&1
    grep -q "cairn serve (PID $serve) owns the data directory since .*; $1 window" "$doctor" && return 0
    sleep 0.5
  done
  return 1
}
serve_windows 1 || fail "doctor does not count the attached window" "$doctor"
second="$out/cairn-attached-second.log"
DBUS_SESSION_BUS_ADDRESS=$bus_addr NO_AT_BRIDGE=1 timeout 30 "$bin" --data-dir "$data/attached" >"$second" 2>&1
code=$?
[ "$code" = 0 ] || fail "the second launch exited with $code, want 0" "$second"
grep -q "cairn: a Cairn window on cairn serve (PID $serve) is already open on this data directory: brought it forward" "$second" ||
  fail "the second launch did not hand over to the attached window" "$second"
grep -q "window attached to the owner's backend" "$second" && fail "the second launch attached a window of its own" "$second"
wait_for "$log" "another launch: attached window brought forward" "the attached window was not brought forward"
kill -0 "$app" 2>/dev/null || fail "the attached window quit" "$log"
serve_windows 1 || fail "serve does not count exactly one window after the second launch" "$doctor"
screenshot "$out/desktop-attached-second-launch.png"
stop "$log" 0
kill -INT "$serve"
wait "$serve"
kill "$bus_pid"
echo "desktop smoke: second launch beside serve ok (it exited 0, the attached window came forward, still one window; no process left)"
passed=$((passed + 1))
fi
echo "$passed passed, 0 failed"
