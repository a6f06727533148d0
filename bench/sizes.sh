#!/usr/bin/env bash
# Package sizes of Cairn side by side with a plain Wails v2 hello-world packaged the same
# way, built in the same run with the same pinned Wails CLI and nfpm:
#   - the desktop binary, both built with Cairn's `make desktop` flags
#     (`wails build -m -s -skipbindings -tags webkit2_41`, frontend embedded);
#   - the .deb and .rpm made by nfpm with Cairn's package layout (binary in /usr/bin, a
#     desktop entry, the icon in the seven hicolor sizes, the same dependencies), and the
#     .tar.gz as `make package-linux` makes it;
#   - the .deb's Installed-Size.
# The hello-world is `wails init -t vanilla` as it comes, its frontend built first as
# `make desktop` builds Cairn's (its icon resized to the same sizes), in a temporary
# directory that is removed afterwards. Prints a Markdown table.
#
# Usage: bench/sizes.sh
# Needs: the desktop build's dependencies (make desktop), npm (the hello-world's frontend
# packages), ImageMagick convert, dpkg-deb.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/cairn-bench-sizes-XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "sizes: $1" >&2
  [ -f "${2:-}" ] && tail -40 "$2" >&2
  exit 2
}

echo "sizes: building Cairn's packages (make package-linux)…" >&2
make -s package-linux >"$work/cairn-build.log" 2>&1 || fail "make package-linux failed" "$work/cairn-build.log"
version=$(make -s -f - <<<'include Makefile
v: ; @echo $(PKG_VERSION)' v)
arch=$(go env GOARCH)

echo "sizes: generating and building the Wails hello-world…" >&2
go tool wails init -n hello -t vanilla -d "$work/hello" >"$work/hello-init.log" 2>&1 ||
  fail "wails init failed" "$work/hello-init.log"
wails_cli=$(go tool -n wails)
# As `make desktop` does for Cairn: the frontend first (-s then skips it in wails build).
(cd "$work/hello/frontend" && npm install --no-audit --no-fund && npm run build) >"$work/hello-build.log" 2>&1 ||
  fail "hello-world frontend build failed" "$work/hello-build.log"
[ -f "$work/hello/frontend/dist/index.html" ] || fail "the hello-world frontend has no dist/index.html" "$work/hello-build.log"
(cd "$work/hello" && "$wails_cli" build -m -s -skipbindings -tags webkit2_41) >>"$work/hello-build.log" 2>&1 ||
  fail "hello-world build failed" "$work/hello-build.log"
hello_bin="$work/hello/build/bin/hello"
[ -x "$hello_bin" ] || fail "no $hello_bin" "$work/hello-build.log"

# The hello-world in Cairn's package layout: nfpm.yaml with every cairn turned into hello.
sizes_list="16 32 48 64 128 256 512"
mkdir -p "$work/pkg/icons"
for s in $sizes_list; do
  convert "$work/hello/build/appicon.png" -resize "${s}x${s}" "$work/pkg/icons/$s.png"
done
sed -e 's/^Name=.*/Name=Hello/' -e 's/cairn/hello/g' -e '/zh_CN/d' build/linux/cairn.desktop >"$work/pkg/hello.desktop"
{
  sed -n '/^contents:/q;p' build/linux/nfpm.yaml | sed 's/^name: cairn/name: hello/'
  echo "contents:"
  echo "  - {src: $hello_bin, dst: /usr/bin/hello, file_info: {mode: 0755}}"
  echo "  - {src: $work/pkg/hello.desktop, dst: /usr/share/applications/hello.desktop}"
  for s in $sizes_list; do
    echo "  - {src: $work/pkg/icons/$s.png, dst: /usr/share/icons/hicolor/${s}x${s}/apps/hello.png}"
  done
  sed -n '/^overrides:/,$p' build/linux/nfpm.yaml
} >"$work/pkg/nfpm.yaml"
mkdir -p "$work/out"
for p in deb rpm; do
  VERSION=$version ARCH=$arch go tool nfpm package -f "$work/pkg/nfpm.yaml" -p $p -t "$work/out/" >>"$work/hello-pkg.log" 2>&1 ||
    fail "nfpm $p for the hello-world failed" "$work/hello-pkg.log"
done
tardir="$work/tar/hello-$version"
mkdir -p "$tardir/share/applications"
cp "$hello_bin" "$tardir/"
cp "$work/pkg/hello.desktop" "$tardir/share/applications/"
for s in $sizes_list; do install -D -m 0644 "$work/pkg/icons/$s.png" "$tardir/share/icons/${s}x${s}/hello.png"; done
tar -C "$work/tar" -czf "$work/out/hello-$version-linux-$arch.tar.gz" "hello-$version"

size() { stat -c %s "$1"; }
one() { # one GLOB: the single file it matches
  local f
  f=$(compgen -G "$1") || fail "no $1"
  [ "$(wc -l <<<"$f")" = 1 ] || fail "more than one $1"
  echo "$f"
}
installed() { echo $(($(dpkg-deb -f "$1" Installed-Size) * 1024)); }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
row() { # row NAME CAIRN_BYTES HELLO_BYTES
  awk -v n="$1" -v c="$2" -v h="$3" 'BEGIN { printf "| %s | %.1f MB | %.1f MB | %.2fx | %+.1f MB |\n", n, c / 1e6, h / 1e6, c / h, (c - h) / 1e6 }'
}

cairn_deb=$(one "build/bin/cairn_${version}_${arch}.deb")
hello_deb=$(one "$work/out/hello_${version}_${arch}.deb")
cairn_rpm=$(one "build/bin/cairn-${version}-1.*.rpm")
hello_rpm=$(one "$work/out/hello-${version}-1.*.rpm")
echo
echo "Package sizes, Cairn $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo ' + uncommitted changes') vs the Wails $(go list -m -f '{{.Version}}' github.com/wailsapp/wails/v2) hello-world, $(date -u '+%Y-%m-%d %H:%M UTC'):"
echo
echo "| artefact | Cairn | hello-world | Cairn ÷ hello | difference |"
echo "| --- | --- | --- | --- | --- |"
row "desktop binary" "$(size build/bin/cairn)" "$(size "$hello_bin")"
row ".deb" "$(size "$cairn_deb")" "$(size "$hello_deb")"
row ".rpm" "$(size "$cairn_rpm")" "$(size "$hello_rpm")"
row ".tar.gz" "$(size "build/bin/cairn-$version-linux-$arch.tar.gz")" "$(size "$work/out/hello-$version-linux-$arch.tar.gz")"
row "installed size of the .deb (Installed-Size)" "$(installed "$cairn_deb")" "$(installed "$hello_deb")"
