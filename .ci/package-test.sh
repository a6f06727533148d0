#!/usr/bin/env bash
# Package test (as root, as CI runs): the .deb made by `make package` is installed with
# dpkg, its `cairn version` and `cairn doctor` run, its desktop entry validated, its desktop
# app started under Xvfb until the frontend is ready; then it is purged and nothing of it may
# be left, while the data directory it used stays exactly as it was. The .rpm must carry the
# same files, the .tar.gz the binary, and the Windows build a PE32+ x86-64 cairn.exe and an
# NSIS installer.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=build/bin
out=test-output/package
mkdir -p "$out"
fail() {
  echo "package test: FAIL — $1" >&2
  [ -f "${2:-}" ] && cat "$2" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (dpkg -i), as CI runs it"
deb=$(ls "$bin"/cairn_*.deb 2>/dev/null | head -1)
rpm=$(ls "$bin"/cairn-*.rpm 2>/dev/null | head -1)
tgz=$(ls "$bin"/cairn-*-linux-*.tar.gz 2>/dev/null | head -1)
[ -f "$deb" ] && [ -f "$rpm" ] && [ -f "$tgz" ] || fail "make package made no .deb, .rpm or .tar.gz in $bin"
dpkg-query -W -f='${Status}' cairn 2>/dev/null | grep -q "installed" && fail "a cairn package is installed already; not replacing it"

# The package's metadata: runtime libraries, the CJK font, the version from git.
dpkg-deb -f "$deb" Depends | grep -q "libgtk-3-0" || fail "Depends lacks libgtk-3-0"
dpkg-deb -f "$deb" Depends | grep -q "libwebkit2gtk-4.1-0" || fail "Depends lacks libwebkit2gtk-4.1-0"
dpkg-deb -f "$deb" Recommends | grep -q "fonts-noto-cjk" || fail "Recommends lacks fonts-noto-cjk"
version=$(dpkg-deb -f "$deb" Version)

# The same files in the .deb and the .rpm (directories aside).
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' | grep -v '/$' | sort >"$out/deb-files"
rpm -qlp "$rpm" 2>/dev/null | sort >"$out/rpm-files"
diff "$out/deb-files" "$out/rpm-files" >"$out/files.diff" || fail "the .rpm's files differ from the .deb's" "$out/files.diff"
grep -qx /usr/bin/cairn "$out/deb-files" || fail "the package lacks /usr/bin/cairn"
grep -qx /usr/share/applications/cairn.desktop "$out/deb-files" || fail "the package lacks the desktop entry"
grep -qx /usr/share/icons/hicolor/256x256/apps/cairn.png "$out/deb-files" || fail "the package lacks the hicolor icons"
tar -tzf "$tgz" | grep -q '^cairn-[^/]*/cairn$' || fail "the .tar.gz lacks the binary"

# A data directory with something in it: the package must leave it alone.
data=$(mktemp -d)
trap 'dpkg -P cairn >/dev/null 2>&1; rm -rf "$data"' EXIT
mkdir -p "$data/dir"
echo "the user's own" >"$data/dir/keep.txt"

dpkg -i "$deb" >"$out/dpkg-i.log" 2>&1 || fail "dpkg -i failed" "$out/dpkg-i.log"
[ -x /usr/bin/cairn ] || fail "no /usr/bin/cairn after dpkg -i"
/usr/bin/cairn version >"$out/version.log" 2>&1 || fail "cairn version failed" "$out/version.log"
git_version=$(git describe --tags --always --dirty 2>/dev/null)
grep -qF "$git_version" "$out/version.log" || fail "cairn version does not say $git_version" "$out/version.log"
desktop-file-validate /usr/share/applications/cairn.desktop >"$out/desktop-file.log" 2>&1 ||
  fail "desktop-file-validate" "$out/desktop-file.log"
[ -s "$out/desktop-file.log" ] && fail "desktop-file-validate has remarks" "$out/desktop-file.log"
CAIRN_SECRETS=file /usr/bin/cairn --data-dir "$data/dir" doctor >"$out/doctor.log" 2>&1 ||
  fail "cairn doctor failed" "$out/doctor.log"
(cd "$data" && find dir -type f -exec sha256sum {} + | sort) >"$out/data-before"

# The installed desktop app opens its window (here on a data directory of its own).
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x860x24 -nolisten tcp >"$out/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; dpkg -P cairn >/dev/null 2>&1; rm -rf "$data"' EXIT
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
log="$out/app.log"
env DISPLAY=$display CAIRN_SECRETS=file WEBKIT_DISABLE_COMPOSITING_MODE=1 LIBGL_ALWAYS_SOFTWARE=1 \
  /usr/bin/cairn --data-dir "$data/app" >"$log" 2>&1 &
app=$!
for _ in $(seq 600); do
  grep -q "frontend ready" "$log" && break
  kill -0 "$app" 2>/dev/null || break
  sleep 0.05
done
grep -q "frontend ready" "$log" || { kill -9 "$app" 2>/dev/null; fail "the installed app's frontend never called Ready" "$log"; }
kill -TERM "$app"
for _ in $(seq 100); do kill -0 "$app" 2>/dev/null || break; sleep 0.1; done
kill -0 "$app" 2>/dev/null && { kill -9 "$app"; fail "the installed app did not quit on SIGTERM" "$log"; }
wait "$app" || fail "the installed app exited with $?" "$log"
echo "package test: installed $version; version, doctor, desktop entry and window ok"

# Removed and purged: none of its files is left, the data directory is as it was.
dpkg -r cairn >"$out/dpkg-r.log" 2>&1 || fail "dpkg -r failed" "$out/dpkg-r.log"
dpkg -P cairn >>"$out/dpkg-r.log" 2>&1 || fail "dpkg -P failed" "$out/dpkg-r.log"
left=""
while read -r f; do [ -e "$f" ] && left="$left $f"; done <"$out/deb-files"
[ -z "$left" ] || fail "left after purge:$left"
dpkg-query -W cairn >/dev/null 2>&1 && fail "dpkg still knows the package"
(cd "$data" && find dir -type f -exec sha256sum {} + | sort) >"$out/data-after"
diff "$out/data-before" "$out/data-after" >"$out/data.diff" || fail "the data directory changed on removal" "$out/data.diff"
grep -q "the user's own" "$data/dir/keep.txt" || fail "the user's file is gone"
echo "package test: removed; nothing left, the data directory untouched"

# Windows: cairn.exe for x86-64 and its NSIS installer.
file "$bin/cairn.exe" | grep -q "PE32+ executable.*x86-64" || fail "cairn.exe is not PE32+ x86-64: $(file "$bin/cairn.exe")"
inst=$(ls "$bin"/cairn-amd64-installer.exe 2>/dev/null)
[ -f "$inst" ] && file "$inst" | grep -q "PE32 executable" || fail "no NSIS installer in $bin"
grep -qa "Nullsoft" "$inst" || fail "$inst is not an NSIS installer"
echo "package test: Windows cairn.exe (PE32+ x86-64) and installer ok"
echo "3 passed, 0 failed"
