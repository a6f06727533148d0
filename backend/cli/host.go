package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/transfer"
)

// claimWait is how long `serve` and the desktop app wait for commands that hold the data
// directory for their run (a chat, an import) before they say it is busy. Most commands
// take well under a second; a longer one is told apart by the message.
const claimWait = 10 * time.Second

// ClaimOwner makes this process the owner of the data directory, waiting for commands
// that hold it; *owner.OwnedError when another owner already runs.
func ClaimOwner(ctx context.Context, env *Env, kind string) (*owner.Owner, error) {
	dir, err := service.ResolveDataDir(env.DataDir)
	if err != nil {
		return nil, err
	}
	claim := func() (*owner.Owner, error) {
		return owner.Claim(ctx, dir, kind, claimWait, func() {
			fmt.Fprintf(env.Stderr, "cairn: waiting for another cairn command to finish with %s…\n", dir)
		})
	}
	o, err := claim()
	if err != nil || !transfer.HasPendingRestore(dir) {
		return o, err
	}
	// A restore staged from a window: swapped in while this process holds the directory,
	// then claimed again (the lock held moved away with the old directory).
	applied, err := transfer.ApplyPending(dir)
	o.Close()
	if err != nil {
		return nil, err
	}
	if applied {
		fmt.Fprintf(env.Stderr, "cairn: restored the backup staged for %s\n", dir)
	}
	return claim()
}

// Hosting is what an owner answers on its control socket: the facade for commands, and
// browser windows for a later `cairn serve`.
type Hosting struct {
	env   *Env
	s     *service.Services
	bound any
	log   *slog.Logger
	api   *server.Server
	// windows are the desktop's own windows; views the servers whose event streams are
	// browser tabs.
	windows int
	mu      sync.Mutex
	views   map[*server.Server]bool
}

// HostConfig is an owner's part in Host.
type HostConfig struct {
	Owner   *owner.Owner
	Bound   any // the facade (main.App)
	Windows int // windows of its own (the desktop window)
	// Focus brings the owner's window forward for a second launch, with its arguments;
	// nil when there is none.
	Focus func(args []string)
}

// Host serves the control socket of the owner for s; it stops with the owner's Close.
func Host(ctx context.Context, env *Env, s *service.Services, hc HostConfig) (*Hosting, error) {
	log := s.Log
	h := &Hosting{env: env, s: s, bound: hc.Bound, log: log, windows: hc.Windows, views: map[*server.Server]bool{}}
	api, err := server.New(server.Config{
		Bound:       hc.Bound,
		Bus:         s.Bus,
		Redact:      s.Redact,
		Logger:      log,
		EventBuffer: 1 << 16, // a terminal chat prints every delta: it must not lose them
	})
	if err != nil {
		return nil, err
	}
	h.api = api
	s.SetOwnerStatus(func() owner.Info {
		in := hc.Owner.Info()
		in.Windows, in.Clients = h.countWindows(), api.EventStreams()
		return in
	})
	// No redaction here: an export with --include-secrets is asked for by this user, who
	// would get the same from the directory itself.
	calls, err := server.New(server.Config{Bound: (&ownerCalls{ctx: ctx, s: s}).perCall(), Logger: log})
	if err != nil {
		return nil, err
	}
	err = hc.Owner.Serve(owner.Control{
		API:     api.LocalHandler(),
		Calls:   calls.LocalHandler(),
		Windows: h.countWindows,
		Clients: api.EventStreams,
		Browser: h.browser,
		Focus:   hc.Focus,
		Routes: map[string]http.Handler{
			"POST /control/run":      http.HandlerFunc(h.serveRun),
			"POST /control/mcp-call": http.HandlerFunc(h.serveMCPCall),
		},
		Log: log,
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// AddView counts the event streams of srv as windows (serve's own server).
func (h *Hosting) AddView(srv *server.Server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.views[srv] = true
}

func (h *Hosting) countWindows() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.windows
	for v := range h.views {
		n += v.EventStreams()
	}
	return n
}

// browser serves the browser UI from this backend on addr (loopback) until ctx ends: the
// answer to a `cairn serve` started while this process owns the directory.
func (h *Hosting) browser(ctx context.Context, addr string) (string, error) {
	if addr == "" {
		addr = server.DefaultAddr
	}
	srv, err := server.New(server.Config{
		Addr:   addr,
		Bound:  h.bound,
		Bus:    h.s.Bus,
		Redact: h.s.Redact,
		Assets: h.env.Deps.Assets,
		Logger: h.log,
	})
	if err != nil {
		return "", err
	}
	url, err := srv.Start(ctx)
	if err != nil {
		return "", err
	}
	h.AddView(srv)
	go func() {
		_ = srv.Wait()
		h.mu.Lock()
		delete(h.views, srv)
		h.mu.Unlock()
	}()
	h.log.Info("serving a browser for cairn serve", "addr", addr)
	return url, nil
}
