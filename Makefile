# Cairn — the two commands are `make run` and `make test`; everything else is their parts.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/cairn-app/cairn/backend/buildinfo.version=$(VERSION)
WAILS_TAGS := webkit2_41
export GOFLAGS ?= -mod=mod

.PHONY: run test deps deps-run frontend cli desktop test-go test-frontend test-e2e test-desktop vet gen bench clean

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
test: deps frontend cli vet test-go test-frontend test-e2e test-desktop
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

## gen: the frontend's wire types (frontend/src/api/generated.ts) from the facade's Go
##      types; run it after changing a facade method, a type it carries or app_events.go.
gen:
	$(GO) generate .

## vet: go vet, gofmt, and the generated wire types up to date.
vet:
	$(GO) vet ./...
	$(GO) run ./backend/cmd/tsgen -check -o frontend/src/api/generated.ts
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

## bench: every bench/*.sh (start-up and memory vs a Wails hello-world, tools, chat);
##        figures go to docs/BENCHMARKS.md by hand, raw output to bench/out/.
bench: deps
	bench/run.sh

clean:
	rm -rf bin build/bin test-output
