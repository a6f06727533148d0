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
	if err := f.Parse(args); err != nil {
		return err
	}
	s, err := env.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	bound := env.Deps.NewBound(ctx, s)
	s.StartBackground(ctx)
	srv, err := server.New(server.Config{
		Addr:        *addr,
		AllowRemote: *allowRemote,
		Bound:       bound,
		Bus:         s.Bus,
		Assets:      env.Deps.Assets,
		Logger:      slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		return err
	}
	url, err := srv.Start(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Cairn is serving at %s\n", url)
	if fl, ok := env.Stdout.(interface{ Sync() error }); ok {
		fl.Sync()
	}
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
