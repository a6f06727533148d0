package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/cairn-app/cairn/backend/server"
)

func runServe(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "serve")
	addr := f.String("addr", "127.0.0.1:0", "listen address (loopback only unless --allow-remote)")
	allowRemote := f.Bool("allow-remote", false, "allow a non-loopback --addr (the token still protects every request)")
	if err := parseFlags(f, args); err != nil {
		return err
	}
	// Listen and print the URL first, then open the backend: a browser opened on the URL
	// spends its first ~150 ms creating a tab and a renderer, and its first request waits
	// in the listen backlog until the server below takes the listener.
	ln, err := server.Listen(ctx, *addr, *allowRemote)
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
	fmt.Fprintf(env.Stdout, "Cairn is serving at %s\n", server.URL(ln.Addr(), token))
	if fl, ok := env.Stdout.(interface{ Sync() error }); ok {
		fl.Sync()
	}
	s, err := env.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	bound := env.Deps.NewBound(ctx, s)
	s.StartBackground(ctx)
	srv, err := server.New(server.Config{
		Addr:        *addr, // its host is the name a remote browser uses (Host/Origin checks)
		Listener:    ln,
		AllowRemote: *allowRemote,
		Token:       token,
		Bound:       bound,
		Bus:         s.Bus,
		Redact:      s.Redact,
		Assets:      env.Deps.Assets,
		Logger:      slog.New(s.Redact.Handler(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))),
	})
	if err != nil {
		return err
	}
	if _, err := srv.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
