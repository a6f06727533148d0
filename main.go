// Command cairn is the Cairn desktop AI chat app. With no arguments it opens the desktop
// window; with a subcommand it is a terminal client of the same backend.
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/cairn-app/cairn/backend/cli"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
	"github.com/cairn-app/cairn/backend/service"
)

//go:embed all:frontend/dist
var distFS embed.FS

//go:embed frontend/src/i18n/locales/*/errors.json
var localeFS embed.FS

func assets() fs.FS {
	sub, err := fs.Sub(distFS, "frontend/dist")
	if err != nil {
		return distFS
	}
	return sub
}

func locales() fs.FS {
	sub, err := fs.Sub(localeFS, "frontend/src/i18n/locales")
	if err != nil {
		return localeFS
	}
	return sub
}

func main() {
	// A re-executed Cairn that is the sandbox helper does only that, before anything starts.
	if code, ok := confine.Entry(os.Args); ok {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	deps := cli.Deps{
		NewBound: func(ctx context.Context, s *service.Services) any { return NewApp(ctx, s, desktopBuild).perCall() },
		Assets:   assets(),
		Desktop:  desktopBuild,
		Locales:  locales(),
		Window:   runDesktop,
	}
	env := &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Deps: deps}
	os.Exit(cli.Run(ctx, os.Args[1:], env))
}
