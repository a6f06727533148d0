#!/usr/bin/env bash
# Installs what building and testing Cairn needs on Debian/Ubuntu, skipping what is there.
# Usage: .ci/deps.sh [run|test]
set -euo pipefail
mode=${1:-test}
root=$(cd "$(dirname "$0")/.." && pwd)
need=(pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
if [ "$mode" = test ]; then
  need+=(xvfb xauth x11-apps imagemagick chromium gnome-keyring dbus dbus-x11 procps psmisc bubblewrap ghostscript pandoc python3 nsis rpm desktop-file-utils fonts-noto-cjk file)
fi
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "deps: Go is required (https://go.dev/dl), see README" >&2; exit 1; }
command -v npm >/dev/null || { echo "deps: Node.js and npm are required, see README" >&2; exit 1; }
cd "$root/frontend"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
# Real MCP servers for the integration tests (pinned in the lock file). The browser
# servers drive the Debian Chromium installed above: nothing downloads a browser.
if [ "$mode" = test ]; then
  export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
  cd "$root/backend/mcp/testdata/npm"
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
  c="$root/backend/mcp/testdata/conformance"; [ -d "$c/node_modules" ] && [ ! "$c/package-lock.json" -nt "$c/node_modules/.package-lock.json" ] || (cd "$c" && npm ci --no-audit --no-fund --loglevel=error)
fi
