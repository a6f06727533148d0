package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
)

func runServe(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "serve")
	addr := f.String("addr", "127.0.0.1:0", "listen address (loopback only unless --allow-remote)")
	allowRemote := f.Bool("allow-remote", false, "allow a non-loopback --addr (the token still protects every request)")
	debugStats := f.Bool("debug-stats", false, "also serve GET /api/debug/stats (Go heap, goroutines, dropped events; behind the token), for bench/soak.sh")
	if err := parseFlags(f, args); err != nil {
		return err
	}
	// One backend per data directory: with the desktop app or another serve running, this
	// one serves the browser UI from that backend.
	own, err := ClaimOwner(ctx, env, owner.KindServe)
	if owned := (*owner.OwnedError)(nil); errors.As(err, &owned) {
		if *allowRemote {
			owned.Client.Close()
			return apperr.New(apperr.DataDirBusy, "--allow-remote needs this serve to own the data directory").
				WithParam("path", env.DataDir).WithParam("owner", owned.Info.Describe())
		}
		if *debugStats {
			owned.Client.Close()
			return apperr.New(apperr.DataDirBusy, "--debug-stats reports this process, so it needs this serve to own the data directory").
				WithParam("path", env.DataDir).WithParam("owner", owned.Info.Describe())
		}
		return serveThroughOwner(ctx, env, owned, *addr)
	}
	if err != nil {
		return err
	}
	defer own.Close() // after the services closed: the lock goes last
	return serveOwned(ctx, env, own, serveOptions{addr: *addr, allowRemote: *allowRemote, debugStats: *debugStats})
}

// serveOptions are the flags of `cairn serve` that shape the server it runs.
type serveOptions struct {
	addr        string
	allowRemote bool
	debugStats  bool
}

// serveOwned is `cairn serve` as the owner of the data directory.
func serveOwned(ctx context.Context, env *Env, own *owner.Owner, opt serveOptions) error {
	addr, allowRemote := opt.addr, opt.allowRemote
	// Listen and print the URL first, then open the backend: a browser opened on the URL
	// spends its first ~150 ms creating a tab and a renderer, and its first request waits
	// in the listen backlog until the server below takes the listener.
	ln, err := server.Listen(ctx, addr, allowRemote)
	if err != nil {
		return err
	}
	// On every way out: a browser still waiting gets its connection reset, the terminal the
	// error (after Shutdown closed it, a second Close is a no-op).
	defer ln.Close()
	token, err := server.NewToken()
	if err != nil {
		return err
	}
	printURL(env, server.URL(ln.Addr(), token))
	s, err := service.Open(ctx, service.Options{DataDir: own.Dir()})
	if err != nil {
		return err
	}
	defer s.Close()
	defer own.StopServing() // before the services close
	bound := env.Deps.NewBound(ctx, s)
	s.StartBackground(ctx)
	srv, err := server.New(server.Config{
		Addr:        addr, // its host is the name a remote browser uses (Host/Origin checks)
		Listener:    ln,
		AllowRemote: allowRemote,
		Token:       token,
		Bound:       bound,
		Bus:         s.Bus,
		Redact:      s.Redact,
		Assets:      env.Deps.Assets,
		DebugStats:  opt.debugStats,
		Logger:      slog.New(s.Redact.Handler(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))),
	})
	if err != nil {
		return err
	}
	host, err := Host(ctx, env, s, HostConfig{Owner: own, Bound: bound})
	if err != nil {
		return err
	}
	host.AddView(srv)
	if _, err := srv.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

func printURL(env *Env, url string) {
	fmt.Fprintf(env.Stdout, "Cairn is serving at %s\n", url)
	if fl, ok := env.Stdout.(interface{ Sync() error }); ok {
		fl.Sync()
	}
}

// serveThroughOwner asks the running owner to serve the browser UI and keeps it served
// until this command ends (Ctrl-C) or the owner stops.
func serveThroughOwner(ctx context.Context, env *Env, owned *owner.OwnedError, addr string) error {
	defer owned.Client.Close()
	fmt.Fprintf(env.Stderr, "cairn: %s already runs the backend of this data directory; serving the browser UI from it\n",
		owned.Info.Describe())
	url, done, err := owned.Client.Browser(ctx, addr)
	if err != nil {
		return err
	}
	printURL(env, url)
	select {
	case <-ctx.Done():
		return nil
	case err := <-done:
		return err
	}
}
