// Package service wires Cairn's backend components for one data directory. The desktop
// app, `cairn serve` and every CLI command build the same Services, so there is one
// implementation of everything.
package service

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// Options configure Open.
type Options struct {
	DataDir string
	Logger  *slog.Logger
	// SecretsBackend forces "file" or "keyring"; empty probes the keyring
	// (env CAIRN_SECRETS does the same).
	SecretsBackend string
}

// Services is the backend of one running Cairn.
type Services struct {
	DataDir  string
	Log      *slog.Logger
	DB       *store.DB
	Bus      *events.Bus
	Settings *settings.Service
	Secrets  *secrets.Store
	// Providers is the model provider list and the way to a model client (CHAT-1).
	Providers *llm.Service
	// Chat is sessions and the agent loop (CHAT-2, CHAT-3); the tool system plugs in
	// with Chat.SetTools.
	Chat *chat.Service
	// Approval is the authority over approvals, permission rules, modes and the audit log
	// (APPR-1..3); it is the tool pipeline's tools.Permission.
	Approval *approval.Service
	// Tools is the process-wide tool registry (TOOL-1); Pipeline runs every call (TOOL-3).
	Tools    *tools.Registry
	Pipeline *tools.Pipeline

	closers []func() error
}

// DefaultDataDir is the OS user config directory's "cairn", or CAIRN_DATA_DIR.
func DefaultDataDir() string {
	if d := os.Getenv("CAIRN_DATA_DIR"); d != "" {
		return d
	}
	base, err := os.UserConfigDir()
	if err != nil {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "cairn")
}

// Open creates the data directory if needed, opens and migrates the database and the
// secret store. Errors are *apperr.Error.
func Open(ctx context.Context, opt Options) (*Services, error) {
	if opt.DataDir == "" {
		opt.DataDir = DefaultDataDir()
	}
	dir, err := filepath.Abs(opt.DataDir)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "resolve data dir").WithParam("path", opt.DataDir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "create data dir").WithParam("path", dir)
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	db, err := store.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	bus := events.NewBus()
	s := &Services{DataDir: dir, Log: log, DB: db, Bus: bus}
	s.closers = append(s.closers, func() error { bus.Close(); return nil }, db.Close)
	s.Settings = settings.New(db, bus)
	force := opt.SecretsBackend
	if force == "" {
		force = os.Getenv("CAIRN_SECRETS")
	}
	s.Secrets = secrets.Open(ctx, dir, db, bus, secrets.Options{Force: force})
	s.Providers = llm.NewService(db, s.Secrets, bus, llm.Options{})
	s.Chat, err = chat.New(ctx, chat.Config{DB: db, Bus: bus, Settings: s.Settings, Models: s.Providers, Log: log})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, s.Chat.Close) // runs before the database closes
	// Built after chat so that it closes first: pending requests become interrupted
	// (resumable) before chat stops its runs.
	s.Approval, err = approval.New(ctx, approval.Config{DB: db, Bus: bus, Settings: s.Settings, Log: log})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, s.Approval.Close)

	// The one tool system: every tool (built-in, MCP, meta) runs through this pipeline,
	// whose permission step is the approval service.
	s.Tools = tools.NewRegistry()
	s.Pipeline = tools.NewPipeline(s.Tools, tools.Options{DataDir: dir, Permission: s.Approval})
	s.Approval.SetTools(s.Tools)
	s.Chat.SetTools(approval.Runner{BatchRunner: s.Pipeline})
	s.Approval.SetResumer(s.Chat)
	return s, nil
}

// Close releases everything in reverse order of opening.
func (s *Services) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil {
			errs = append(errs, err)
		}
	}
	s.closers = nil
	return errors.Join(errs...)
}

// OnClose registers a cleanup run by Close (components started after Open).
func (s *Services) OnClose(fn func() error) { s.closers = append(s.closers, fn) }
