# Cairn — the two commands are `make run` and `make test`; everything else is their parts.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/cairn-app/cairn/backend/buildinfo.version=$(VERSION)
WAILS_TAGS := webkit2_41
export GOFLAGS ?= -mod=mod

.PHONY: run test deps deps-run frontend cli desktop test-go test-frontend test-e2e test-desktop vet gen bench clean cross package package-linux package-windows test-package

## run: install what is missing, build the frontend and the desktop app, open it
##      (with no display: start `cairn serve` and print its URL).
run: deps-run frontend desktop cli
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		exec build/bin/cairn; \
	else \
		echo "No display found: starting 'cairn serve' instead of the desktop window."; \
		exec bin/cairn serve; \
	fi

## test: every test — go vet, Go tests with -race (real keyring), frontend typecheck and
##       Vitest, end-to-end in Chromium, desktop smoke under Xvfb.
test: deps frontend cli vet cross test-go test-frontend test-e2e test-desktop test-package
	@echo "make test: all suites passed"

deps:
	@.ci/deps.sh test

deps-run:
	@.ci/deps.sh run

frontend:
	cd frontend && npm run build

## cli: the CLI + serve binary (no cgo, no desktop window).
cli:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/cairn .

## desktop: the Wails desktop app at build/bin/cairn.
desktop: frontend
	$(GO) tool wails build -m -s -skipbindings -tags $(WAILS_TAGS) -ldflags "$(LDFLAGS)"

## cross: go vet (which type-checks every package and its tests) for every platform Cairn
##        ships on, so a platform's file that breaks another platform fails here; the
##        native build is `cli`, the Windows binary is linked by `package-windows`.
CROSS := linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
cross:
	@set -e; for p in $(CROSS); do \
		echo "cross: $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) vet ./... ; \
	done

## package: the Linux packages (version from git: v1.2.0-3-gabc is 1.2.0+3.gabc) (.deb, .rpm, .tar.gz) of the desktop app and the Windows
##          cairn.exe with its NSIS installer, in build/bin/. macOS is built on a Mac:
##          `go tool wails build -platform darwin/universal -ldflags "$(LDFLAGS)"`.
PKG_VERSION = $(shell echo '$(VERSION)' | sed -e 's/^v//' -e '/^[0-9][0-9]*\./!s/^/0.0.0~git/' -e 's/-/+/' -e 's/-/./g')
PKG_ARCH := $(shell $(GO) env GOARCH)
package: package-linux package-windows

package-linux: desktop
	VERSION=$(PKG_VERSION) ARCH=$(PKG_ARCH) $(GO) tool nfpm package -f build/linux/nfpm.yaml -p deb -t build/bin/
	VERSION=$(PKG_VERSION) ARCH=$(PKG_ARCH) $(GO) tool nfpm package -f build/linux/nfpm.yaml -p rpm -t build/bin/
	rm -rf build/bin/tar && mkdir -p build/bin/tar/cairn-$(PKG_VERSION)/share/applications
	cp build/bin/cairn build/bin/tar/cairn-$(PKG_VERSION)/
	cp build/linux/cairn.desktop build/bin/tar/cairn-$(PKG_VERSION)/share/applications/
	cp -r build/linux/icons build/bin/tar/cairn-$(PKG_VERSION)/share/icons
	tar -C build/bin/tar -czf build/bin/cairn-$(PKG_VERSION)-linux-$(PKG_ARCH).tar.gz cairn-$(PKG_VERSION)
	rm -rf build/bin/tar

## package-windows: cairn.exe and its installer (makensis from Debian's nsis); the Windows
##                  build of Wails needs no cgo. Built in build/windows-bin/ so the Linux
##                  binary in build/bin/ stays.
package-windows: frontend
	$(GO) tool wails build -m -s -skipbindings -platform windows/amd64 -nsis -ldflags "$(LDFLAGS)" -o cairn.exe

## test-package: the .deb installed, run and removed; the .rpm's file list; the Windows
##               binary and installer.
test-package: package
	.ci/package-test.sh

## gen: the frontend's wire types (frontend/src/api/generated.ts) from the facade's Go
##      types; run it after changing a facade method, a type it carries or app_events.go.
gen:
	$(GO) generate .

## vet: go vet, gofmt, and the generated wire types and test fixtures up to date.
vet:
	$(GO) vet ./...
	$(GO) run ./backend/cmd/tsgen -check -o frontend/src/api/generated.ts
	$(GO) run ./backend/cmd/fixtures -check -o frontend/src/test/backend.generated.ts
	@test -z "$$(gofmt -l main*.go app*.go backend)" || { gofmt -l main*.go app*.go backend; echo "gofmt needed"; exit 1; }

test-go:
	.ci/with-keyring.sh $(GO) test -race -count=1 -timeout 15m ./...

test-frontend:
	cd frontend && npm run typecheck && npm test

## test-e2e: the Chromium end-to-end suites (frontend/e2e) against `cairn serve`; the
##           frontend is built first because bin/cairn embeds frontend/dist.
test-e2e: frontend cli
	cd frontend && npm run e2e

test-desktop: desktop
	.ci/desktop-smoke.sh

## bench: every bench/*.sh (start-up, memory and package sizes vs a Wails hello-world, tools, chat);
##        figures go to docs/BENCHMARKS.md by hand, raw output to bench/out/.
bench: deps
	bench/run.sh

clean:
	rm -rf bin build/bin test-output
