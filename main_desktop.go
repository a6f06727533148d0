//go:build desktop

package main

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/cli"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/sessionbus"
	"github.com/cairn-app/cairn/backend/sysopen"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

const desktopBuild = true

// appIcon is the window's and the taskbar's icon on Linux (Windows and macOS take theirs
// from the executable's resources and the bundle, which wails build makes from build/).
//
//go:embed build/linux/icons/256x256/cairn.png
var appIcon []byte

// eventName is the one Wails event channel every backend event travels on.
const eventName = "cairn:event"

// runDesktop opens the Wails window on the same services `serve` and the CLI use.
func runDesktop(ctx context.Context, env *cli.Env) int {
	dataDir := env.DataDir
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	own, err := cli.ClaimOwner(ctx, env, owner.KindDesktop)
	if err != nil {
		return notOwner(ctx, env, err, dataDir, log)
	}
	defer own.Close() // after the services closed: the lock goes last
	s, err := service.Open(ctx, service.Options{DataDir: own.Dir(), Logger: log})
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %s\n", env.Localize(apperr.From(err)))
		if ctx.Err() != nil {
			return 1 // interrupted while opening: the user asked to stop, not to be told
		}
		return showStartupFailure(ctx, env, err, dataDir, log)
	}
	defer s.Close()
	defer own.StopServing() // before the services close

	log = s.Log // the same sink, with known secrets redacted
	app := NewApp(ctx, s, true)
	var trim sync.Once
	app.onReady = func() {
		// Once the first frame is long done, return what the start freed to the kernel:
		// the Go heap's garbage from opening the database and the caches, and the C heap's
		// from GTK and WebKit.
		trim.Do(func() {
			time.AfterFunc(3*time.Second, func() {
				debug.FreeOSMemory()
				releaseFreedHeap()
			})
		})
	}
	// The native dialog needs the window's context, which OnStartup hands over while the
	// page may already be calling the facade: kept apart from app.ctx, which never changes.
	var window atomic.Pointer[context.Context]
	app.chooseSavePath = func(name string) (string, error) {
		wctx := window.Load()
		if wctx == nil {
			return "", errors.New("the window is not up yet") // SaveTextFile wraps it as file_save_failed
		}
		return runtime.SaveFileDialog(*wctx, runtime.SaveDialogOptions{DefaultFilename: name, CanCreateDirectories: true})
	}
	app.chooseFolder = func(title string) (string, error) {
		wctx := window.Load()
		if wctx == nil {
			return "", errors.New("the window is not up yet")
		}
		return runtime.OpenDirectoryDialog(*wctx, runtime.OpenDialogOptions{Title: title, CanCreateDirectories: false})
	}
	app.openFile = func(path string) error { return sysopen.Open(ctx, path) }
	// index.html carries the settings snapshot and the window's strings, as in `serve`, and
	// every answer the same Content-Security-Policy: nothing in an answer can make the
	// window fetch from another host.
	page, err := server.PageMiddleware(app, env.Deps.Assets, log, server.DesktopPageCalls())
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %s\n", env.Localize(apperr.From(err)))
		return 1
	}
	// A second launch on this data directory finds this one on the control socket and asks
	// it to come forward (see notOwner); Wails' own lock does the same for a launch that
	// raced past it, when a session bus is there to carry it.
	focus := func(args []string) {
		if wctx := window.Load(); wctx != nil {
			runtime.WindowUnminimise(*wctx)
			runtime.WindowShow(*wctx)
			log.Info("another launch: window brought forward", "args", len(args))
		}
	}
	if _, err := cli.Host(ctx, env, s, cli.HostConfig{Owner: own, Bound: app, Windows: 1, Focus: focus}); err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %s\n", env.Localize(apperr.From(err)))
		return 1
	}
	err = wails.Run(&options.App{
		SingleInstanceLock: singleInstance(own.Dir(), focus),
		Title:              "Cairn",
		Width:              1200,
		Height:             800,
		MinWidth:           720,
		MinHeight:          480,
		Linux:              &linux.Options{Icon: appIcon, ProgramName: "cairn"},
		AssetServer: &assetserver.Options{
			Assets:     env.Deps.Assets,
			Middleware: page,
		},
		OnStartup: func(wctx context.Context) {
			window.Store(&wctx)
			go forwardEvents(wctx, s.Bus)
			s.StartBackground(wctx)
			go quitOnSignal(ctx, wctx, log)
		},
		OnShutdown: func(context.Context) { log.Info("window closed") },
		Bind:       []any{app},
		ErrorFormatter: func(err error) any {
			return s.Redact.Error(apperr.From(err)) // a provider's error may echo the key
		},
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %v\n", err)
		return 1
	}
	return 0
}

// notOwner is the start of a desktop app that could not own the data directory: a
// second launch brings the first one's window forward and exits; beside `cairn serve` its
// window is one of serve's windows (attachWindow); while commands keep the directory busy,
// the window says why it does not open.
func notOwner(ctx context.Context, env *cli.Env, err error, dataDir string, log *slog.Logger) int {
	var owned *owner.OwnedError
	if errors.As(err, &owned) {
		defer owned.Client.Close()
		if owned.Info.Kind == owner.KindDesktop && owned.Client.Focus(ctx, os.Args[1:]) == nil {
			fmt.Fprintf(env.Stderr, "cairn: Cairn is already open on this data directory (PID %d): brought its window forward\n", owned.Info.PID)
			return 0
		}
		return attachWindow(ctx, env, owned, dataDir, log)
	}
	fmt.Fprintf(env.Stderr, "cairn: %s\n", env.Localize(apperr.From(err)))
	if ctx.Err() != nil {
		return 1
	}
	return showStartupFailure(ctx, env, err, dataDir, log)
}

// singleInstance is Wails' single-instance lock for this data directory (another data
// directory is another instance), or nil without a session bus: Wails would otherwise have
// godbus launch a D-Bus daemon.
func singleInstance(dir string, focus func([]string)) *options.SingleInstanceLock {
	if _, err := sessionbus.Address(); err != nil {
		return nil
	}
	sum := sha256.Sum256([]byte(dir))
	return &options.SingleInstanceLock{
		UniqueId:               "app.cairn.desktop." + hex.EncodeToString(sum[:8]),
		OnSecondInstanceLaunch: func(d options.SecondInstanceData) { focus(d.Args) },
	}
}

// quitOnSignal logs SIGINT/SIGTERM (ctx ends) and leaves the quitting to Wails, whose own
// handler closes the window the normal way so WebKit's helper processes exit with it: a
// second Quit from here raced it inside GTK and crashed. Only a signal that came before
// Wails listened (ctx already done at start-up) is acted on here.
func quitOnSignal(ctx, wctx context.Context, log *slog.Logger) {
	if ctx.Err() != nil {
		log.Info("signal received, quitting")
		runtime.Quit(wctx)
		return
	}
	select {
	case <-ctx.Done():
		log.Info("signal received, quitting")
	case <-wctx.Done():
	}
}

// forwardEvents relays every bus event to the window; a lost event becomes a resync.
func forwardEvents(ctx context.Context, bus *events.Bus) {
	sub := bus.Subscribe(1024)
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			if sub.Dropped() {
				runtime.EventsEmit(ctx, eventName, events.Event{Type: events.TypeResync})
			}
			runtime.EventsEmit(ctx, eventName, ev)
		}
	}
}

// showStartupFailure opens the window on the failure screen (StartupFailure bound instead of
// App) and returns 1 once it is closed: the error is in the window as well as on stderr.
func showStartupFailure(ctx context.Context, env *cli.Env, openErr error, dataDir string, log *slog.Logger) int {
	var window atomic.Pointer[context.Context]
	quit := func() {
		if wctx := window.Load(); wctx != nil {
			runtime.Quit(*wctx)
		}
	}
	dataDir, _ = service.ResolveDataDir(dataDir) // as far as it got: the failure may be that
	failure := NewStartupFailure(openErr, dataDir, cli.Language(), log, quit)
	err := wails.Run(&options.App{
		Title:       "Cairn",
		Width:       760,
		Height:      520,
		Linux:       &linux.Options{Icon: appIcon, ProgramName: "cairn"},
		AssetServer: &assetserver.Options{Assets: env.Deps.Assets, Middleware: server.SecurityHeaders},
		OnStartup: func(wctx context.Context) {
			window.Store(&wctx)
			go quitOnSignal(ctx, wctx, log)
		},
		Bind: []any{failure},
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %v\n", err)
	}
	return 1
}
