package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
)

// memSecrets is an in-memory SecretStore.
type memSecrets struct {
	mu sync.Mutex
	m  map[string]string
}

func newMemSecrets() *memSecrets { return &memSecrets{m: map[string]string{}} }

func (s *memSecrets) Get(name string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[name]
	return v, ok, nil
}

func (s *memSecrets) Set(_ context.Context, name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = value
	return nil
}

func (s *memSecrets) Delete(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, name)
	return nil
}

type harness struct {
	t       *testing.T
	m       *Manager
	bus     *events.Bus
	reg     *tools.Registry
	secrets *memSecrets
	sub     *events.Subscription
	dataDir string
	cfg     Config
	noStart bool
}

// cold keeps the warmer off: saving a server connects nothing (like the CLI).
func cold(h *harness) { h.noStart = true }

// newHarness builds a manager over a fresh database; it is closed with the test. Events
// are subscribed from the start, so waits never miss a change.
func newHarness(t *testing.T, tweak ...any) *harness {
	t.Helper()
	bus := events.NewBus()
	h := &harness{t: t, bus: bus, reg: tools.NewRegistry(), secrets: newMemSecrets(), dataDir: t.TempDir()}
	h.sub = bus.Subscribe(1 << 14)
	h.cfg = Config{
		DB: mcptest.OpenDB(t), Bus: bus, Secrets: h.secrets, Registry: h.reg, DataDir: h.dataDir,
		Options: Options{
			LoginShell: "-", ConnectTimeout: 30 * time.Second, StopGrace: 500 * time.Millisecond,
			RestartMin: 50 * time.Millisecond, RestartMax: time.Second,
		},
	}
	for _, f := range tweak {
		switch f := f.(type) {
		case func(*Config):
			f(&h.cfg)
		case func(*harness):
			f(h)
		}
	}
	m, err := New(context.Background(), h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.m = m
	if !h.noStart {
		m.Start()
	}
	t.Cleanup(func() {
		m.Close()
		bus.Close()
	})
	return h
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func (h *harness) save(s Server) ServerView {
	h.t.Helper()
	v, err := h.m.Save(context.Background(), s)
	if err != nil {
		h.t.Fatalf("save %s: %v", s.Name, err)
	}
	return v
}

// everything is server-everything over stdio.
func everything(t *testing.T, name string) Server {
	mcptest.NeedNPM(t)
	return Server{Name: name, Transport: TransportStdio, Command: mcptest.Node(t), Args: []string{mcptest.Everything(), "stdio"}, Enabled: true}
}

// wait reads events until pred holds for the server's view (checked once up front too).
func (h *harness) wait(id string, d time.Duration, what string, pred func(ServerView) bool) ServerView {
	h.t.Helper()
	if v, err := h.m.View(context.Background(), id); err == nil && pred(v) {
		return v
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-h.sub.C:
			if !ok {
				h.t.Fatalf("bus closed while waiting for %s", what)
			}
			if ev.Type != TypeServer {
				continue
			}
			var v ServerView
			if json.Unmarshal(ev.Data, &v) != nil || v.ID != id {
				continue
			}
			if pred(v) {
				return v
			}
		case <-timer.C:
			v, _ := h.m.View(context.Background(), id)
			lines, _ := h.m.Logs(id, 30)
			var b strings.Builder
			for _, l := range lines {
				fmt.Fprintf(&b, "\n  %s %s", l.Stream, l.Text)
			}
			h.t.Fatalf("timed out after %s waiting for %s; state %s (%s); log:%s", d, what, v.Status.State, v.Status.Reason, b.String())
		}
	}
}

func ready(v ServerView) bool { return v.Status.State == StateReady && v.CachedAt > 0 }

func hasTool(name string) func(ServerView) bool {
	return func(v ServerView) bool {
		return slices.ContainsFunc(v.Tools, func(t ToolInfo) bool { return t.Name == name })
	}
}

func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	ae := apperr.From(err)
	if ae.Code != code {
		t.Fatalf("error %s (%v), want %s", ae.Code, err, code)
	}
	return ae
}

func (h *harness) call(id, tool, args string, progress func(tools.Progress)) (tools.Result, error) {
	return h.m.CallTool(ctxT(h.t, 30*time.Second), id, tool, json.RawMessage(args), progress)
}
