#!/usr/bin/env bash
# Runs a command with a real Secret Service: a private D-Bus session and an unlocked
# gnome-keyring in a throwaway HOME, so go-keyring is tested against the real thing.
# Usage: .ci/with-keyring.sh CMD ARGS...
set -euo pipefail
if [ -z "${CAIRN_IN_KEYRING_SESSION:-}" ]; then
  export CAIRN_IN_KEYRING_SESSION=1
  exec dbus-run-session -- "$0" "$@"
fi
# Keep Go's and npm's caches where they were before HOME moves.
export GOPATH="$(go env GOPATH)" GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)"
export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
export HOME="$(mktemp -d)"
mkdir -p "$HOME/.local/share/keyrings"
eval "$(printf 'cairn-test' | gnome-keyring-daemon --daemonize --unlock --components=secrets 2>/dev/null | sed 's/^/export /')"
export CAIRN_TEST_KEYRING=1
set +e
"$@"
status=$?
[ -n "${GNOME_KEYRING_PID:-}" ] && kill "$GNOME_KEYRING_PID" 2>/dev/null
exit $status
