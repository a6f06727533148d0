//go:build desktop

package main

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/cli"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// attachWindow opens this launch's window on the backend of the process that owns the
// data directory (`cairn serve`), so the window and every browser tab are windows of one
// backend. The owner serves the browser UI on a loopback port for as long as this process
// stays connected (what a `cairn serve` beside the desktop app asks for) and the window
// loads it from there: its calls and events go over HTTP to that backend, and this process
// opens nothing of the data directory. The window closes when the owner stops. Like the
// owning desktop app it holds Wails' single-instance lock of the data directory, so a
// later launch brings this window forward and exits instead of opening a second one.
func attachWindow(ctx context.Context, env *cli.Env, owned *owner.OwnedError, dataDir string, log *slog.Logger) int {
	who := owned.Info.Describe()
	var window atomic.Pointer[context.Context]
	lock := attachedLock(dataDir, &window, log)
	if handOver(ctx, lock, os.Args[1:]) {
		fmt.Fprintf(env.Stderr, "cairn: a Cairn window on %s is already open on this data directory: brought it forward\n", who)
		return 0
	}
	bctx, cancel := context.WithCancel(ctx)
	defer cancel() // the owner stops serving this window's port
	url, done, err := owned.Client.Browser(bctx, server.DefaultAddr)
	if err != nil {
		dir, _ := service.ResolveDataDir(dataDir)
		e := apperr.Wrap(err, apperr.DesktopAttachFailed, "attach a window to %s", who).
			WithParam("owner", who).WithParam("path", dir).WithParam("message", env.Localize(apperr.From(err)))
		fmt.Fprintf(env.Stderr, "cairn: %s\n", env.Localize(e))
		if ctx.Err() != nil {
			return 1
		}
		return showStartupFailure(ctx, env, e, dataDir, log)
	}
	fmt.Fprintf(env.Stderr, "cairn: %s runs the backend of this data directory: this window is one of its windows\n", who)
	log.Info("window attached to the owner's backend", "owner", who)
	var ownerGone atomic.Pointer[error]
	err = wails.Run(&options.App{
		SingleInstanceLock: lock,
		Title:              "Cairn",
		Width:              1200,
		Height:             800,
		MinWidth:           720,
		MinHeight:          480,
		Linux:              &linux.Options{Icon: appIcon, ProgramName: "cairn"},
		AssetServer:        &assetserver.Options{Handler: server.SecurityHeaders(attachPage(url))},
		OnStartup: func(wctx context.Context) {
			window.Store(&wctx)
			go func() {
				select {
				case err := <-done:
					if err != nil {
						ownerGone.Store(&err)
						log.Info("the owner of the data directory stopped: closing the window", "owner", who)
						runtime.Quit(wctx)
					}
				case <-wctx.Done():
				}
			}()
			go quitOnSignal(ctx, wctx, log)
		},
		OnShutdown: func(context.Context) { log.Info("window closed") },
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "cairn: %v\n", err)
		return 1
	}
	if e := ownerGone.Load(); e != nil {
		fmt.Fprintf(env.Stderr, "cairn: %s\n", env.Localize(apperr.From(*e)))
		return 1
	}
	return 0
}

// attachedLock is the single-instance lock of the data directory (the owning desktop
// app's, see singleInstance) for an attached window: a second launch hands its arguments
// over and this window comes forward. Nil without a session bus (then a second launch
// opens a second attached window).
func attachedLock(dataDir string, window *atomic.Pointer[context.Context], log *slog.Logger) *options.SingleInstanceLock {
	dir, err := service.ResolveDataDir(dataDir)
	if err != nil {
		return nil
	}
	return singleInstance(dir, func(args []string) {
		if wctx := window.Load(); wctx != nil {
			runtime.WindowUnminimise(*wctx)
			runtime.WindowShow(*wctx)
			log.Info("another launch: attached window brought forward", "args", len(args))
		}
	})
}

// attachPage is the window's only page of its own: it goes on at once to the address the
// owner serves the UI at (token included, which the UI moves out of the address).
func attachPage(url string) http.Handler {
	body := fmt.Sprintf("<!doctype html><meta charset=\"utf-8\"><title>Cairn</title>"+
		"<meta http-equiv=\"refresh\" content=\"0;url=%s\">", html.EscapeString(url))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, body)
	})
}
