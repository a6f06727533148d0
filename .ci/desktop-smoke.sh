#!/usr/bin/env bash
# Desktop smoke test: start the Wails build under Xvfb, wait until the frontend called the
# bound Ready method (the backend logs "frontend ready"), take a screenshot, quit with
# SIGTERM and check that no process (app or WebKit helper) is left behind.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=build/bin/cairn
out=test-output/desktop
mkdir -p "$out"
data=$(mktemp -d)
log="$out/cairn.log"
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x860x24 -nolisten tcp >"$out/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
export DISPLAY=$display CAIRN_SECRETS=file WEBKIT_DISABLE_COMPOSITING_MODE=1 LIBGL_ALWAYS_SOFTWARE=1
start=$(date +%s%N)
"$bin" --data-dir "$data" >"$log" 2>&1 &
app=$!
ready=""
for _ in $(seq 600); do
  if grep -q "frontend ready" "$log"; then ready=1; break; fi
  kill -0 $app 2>/dev/null || break
  sleep 0.05
done
if [ -z "$ready" ]; then
  echo "desktop smoke: FAIL — the frontend never called Ready" >&2
  cat "$log" >&2
  kill -9 $app 2>/dev/null
  exit 1
fi
echo "desktop smoke: frontend ready after $(( ($(date +%s%N) - start) / 1000000 )) ms"
sleep 1
import -display "$display" -window root "$out/desktop.png" 2>/dev/null || xwd -display "$display" -root -silent | convert xwd:- "$out/desktop.png"
children=$(pgrep -P $app | tr '\n' ' ')
kill -TERM $app
for _ in $(seq 100); do kill -0 $app 2>/dev/null || break; sleep 0.1; done
if kill -0 $app 2>/dev/null; then
  echo "desktop smoke: FAIL — app did not quit on SIGTERM" >&2
  kill -9 $app; exit 1
fi
wait $app; code=$?
for _ in $(seq 30); do live=0; for c in $children; do kill -0 "$c" 2>/dev/null && live=1; done; [ $live = 0 ] && break; sleep 0.1; done
left=""
for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
left="$left $(pgrep -f "WebKit.*Process" -s 0 2>/dev/null | tr '\n' ' ')"
if [ -n "${left// /}" ]; then
  echo "desktop smoke: FAIL — processes left behind:$left" >&2
  ps -o pid,cmd -p ${left// /,} >&2
  exit 1
fi
if ! grep -q "signal received, quitting" "$log"; then
  echo "desktop smoke: FAIL — no clean quit in the log" >&2; cat "$log" >&2; exit 1
fi
echo "desktop smoke: ok (exit $code, screenshot $out/desktop.png, no process left)"
echo "1 passed, 0 failed"
