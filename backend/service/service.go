// Package service wires Cairn's backend components for one data directory. The desktop
// app, `cairn serve` and every CLI command build the same Services, so there is one
// implementation of everything.
package service

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/assistants"
	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/classifier"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/files"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/oauth"
	"github.com/cairn-app/cairn/backend/notify"
	"github.com/cairn-app/cairn/backend/redact"
	"github.com/cairn-app/cairn/backend/remoteimage"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/websearch"
)

// Options configure Open.
type Options struct {
	DataDir string
	Logger  *slog.Logger
	// SecretsBackend forces "file" or "keyring"; empty probes the keyring
	// (env CAIRN_SECRETS does the same).
	SecretsBackend string
	// WarmAfter is how long StartBackground waits for a window before the MCP warmer
	// starts anyway (2 s).
	WarmAfter time.Duration
	// Capabilities replaces the list Capabilities returns (a test's own capability).
	Capabilities capability.List
}

// Services is the backend of one running Cairn.
type Services struct {
	DataDir  string
	Log      *slog.Logger
	DB       *store.DB
	Bus      *events.Bus
	Settings *settings.Service
	Secrets  *secrets.Store
	// Redact knows every value Secrets holds; Log, Bus and chat leave them out of what they
	// write, and anything else that shows an error (serve's log) can use it too.
	Redact *redact.Set
	// Providers is the model provider list and the way to a model client (CHAT-1).
	Providers *llm.Service
	// Chat is sessions and the agent loop (CHAT-2, CHAT-3) over the tool pipeline.
	Chat *chat.Service
	// Assistants are saved presets a conversation starts from (over Chat, and the KB and
	// skills services the capabilities opened).
	Assistants *assistants.Service
	// Files is the store of the files attached to messages (the file capability's
	// tools read it through a store of their own over the same directory).
	Files *files.Store
	// Approval is the authority over approvals, permission rules, modes and the audit log
	// (APPR-1..3); it is the tool pipeline's tools.Permission.
	Approval *approval.Service
	// Tools is the process-wide tool registry (TOOL-1); Pipeline runs every call (TOOL-3).
	// Presence knows whether any window has the focus (approval notifications).
	Presence  *notify.Presence
	Tools     *tools.Registry
	Pipeline  *tools.Pipeline
	ToolPrefs *tools.Prefs
	// MCP is the MCP runtime and catalog (MCP-1..4); Start launches its warmer.
	MCP *mcp.Manager
	// Elicit holds MCP servers' questions to the user until a window (or the terminal)
	// answers.
	Elicit *elicit.Broker
	// OAuth signs in to remote MCP servers (authorization code + PKCE through the
	// browser, tokens in the keyring, renewal); MCP uses it for every HTTP server.
	OAuth *oauth.Broker
	// Capabilities is the one list of capabilities this Cairn was opened with (see
	// Capabilities): every toolset, its tools, secrets, settings and commands.
	Capabilities capability.List
	// Images fetches a remote image of an answer when the user asks (public addresses
	// only), for windows that may load no image from another host themselves.
	Images *remoteimage.Fetcher
	// Favicons fetches the site icons of web search results while the user has them on
	// (websearch.favicons), through the same guard; off, nothing is fetched.
	Favicons *remoteimage.Favicons

	closers   []func() error
	opened    map[string]any // capabilities' Opened.Value by name
	owner     ownerStatus
	warmAfter time.Duration
	warm      struct {
		mu    sync.Mutex
		timer *time.Timer
		at    time.Time // when the timer fires
		fired bool
	}
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

// ResolveDataDir is the absolute data directory Open uses for dir ("" is the default); on
// error it returns the directory as far as it got.
func ResolveDataDir(dir string) (string, error) {
	if dir == "" {
		dir = DefaultDataDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, err
	}
	return abs, nil
}

// Open creates the data directory if needed, opens and migrates the database and the
// secret store. Errors are *apperr.Error.
func Open(ctx context.Context, opt Options) (*Services, error) {
	dir, err := ResolveDataDir(opt.DataDir)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "resolve data dir").WithParam("path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "create data dir").WithParam("path", dir)
	}
	caps := opt.Capabilities
	if caps == nil {
		caps = Capabilities()
	}
	if err := checkCapabilities(caps); err != nil {
		return nil, err
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	red := redact.New()
	log = slog.New(red.Handler(log.Handler()))
	db, err := store.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	bus := events.NewBus(events.WithFilter(red.JSON))
	s := &Services{DataDir: dir, Log: log, DB: db, Bus: bus, Redact: red, warmAfter: cmp.Or(opt.WarmAfter, 2*time.Second), Capabilities: caps}
	s.closers = append(s.closers, func() error { bus.Close(); return nil }, db.Close)
	s.Settings = settings.New(db, bus, caps.Settings()...)
	s.Presence = notify.NewPresence(0)
	s.Images = remoteimage.New(remoteimage.Options{})
	s.Favicons = remoteimage.NewFavicons(remoteimage.FaviconOptions{Enabled: s.faviconsOn})
	force := opt.SecretsBackend
	if force == "" {
		force = os.Getenv("CAIRN_SECRETS")
	}
	s.Secrets = secrets.Open(ctx, dir, db, bus, secrets.Options{Force: force, Redact: red, Known: caps.Secrets()})
	s.Providers = llm.NewService(db, s.Secrets, bus, llm.Options{})
	// MCP servers (MCP-1..4). Built before chat so that it closes after it: runs stop
	// before their servers do. Nothing connects until Start (the desktop app and
	// `cairn serve` start it; CLI commands connect only to what they use).
	// The OAuth broker closes after the manager: sign-ins still waiting end then.
	s.OAuth = oauth.New(oauth.Options{Secrets: s.Secrets, Log: log, Version: buildinfo.Get().Version})
	s.closers = append(s.closers, s.OAuth.Close)
	// The registry and the one store of per-tool choices come first: MCP builds its
	// entries' approval from the choices and follows their changes.
	s.Tools = tools.NewRegistry()
	s.ToolPrefs = tools.NewPrefs(db.DB, bus, s.Tools)
	// The broker closes before the manager (closers run last to first): servers still
	// asking get "cancel", and no connection closes with a question in flight.
	s.Elicit = elicit.New(bus, log)
	s.MCP, err = mcp.New(ctx, mcp.Config{DB: db, Bus: bus, Secrets: s.Secrets, SignIn: s.OAuth, DataDir: dir, Log: log, Redact: red.String,
		Prefs: s.ToolPrefs, Elicit: askUser(s.Elicit), Workspace: sandboxWorkspaces{s}.existing})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, s.MCP.Close, s.Elicit.Close)
	// The one tool system: every tool (built-in, MCP, meta) runs through this pipeline,
	// whose permission step is the approval service. The MCP servers' cached tools join
	// the registry; nothing connects until MCP.Start.
	s.MCP.AttachRegistry(ctx, s.Tools)
	s.Approval, err = approval.New(ctx, approval.Config{DB: db, Bus: bus, Settings: s.Settings, Log: log,
		Tools: s.Tools, Servers: s.MCP, Places: mcpPlaces{s.MCP}, Workspaces: sandboxWorkspaces{s},
		Classifier: classifier.New(classifier.Config{Models: s.Providers, Settings: s.Settings, History: chatHistory{s}})})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.Pipeline = tools.NewPipeline(s.Tools, tools.Options{DataDir: dir, Permission: s.Approval, Disabled: s.ToolPrefs.Disabled,
		PreHooks: []tools.PreHook{s.unconfinedAsks}})
	s.Files = files.NewStore(db.DB, dir, s.Settings)
	s.Chat, err = chat.New(ctx, chat.Config{DB: db, Bus: bus, Settings: s.Settings, Models: s.Providers, Prices: s.Providers, Tools: s.Pipeline,
		Toolsets: caps, Log: log, Redact: red, Attachments: s.Files, Notices: taskNotices{s}})
	if err != nil {
		s.Approval.Close()
		s.Close()
		return nil, err
	}
	// Approval closes first (closers run last to first): pending requests become
	// interrupted (resumable) before chat stops its runs, and chat before the database.
	s.closers = append(s.closers, s.Chat.Close, s.Approval.Close)
	if err := s.openCapabilities(ctx); err != nil {
		s.Close()
		return nil, apperr.Wrap(err, apperr.Internal, "open capabilities")
	}
	s.openAssistants()
	return s, nil
}

// mcpPlaces tells the approval service where an MCP server's tools read relative paths,
// so a path rule holds for `protected/x` as it does for `<root>/protected/x`.
type mcpPlaces struct{ m *mcp.Manager }

func (p mcpPlaces) ServerPlaces(serverID string) (approval.ServerPlaces, bool) {
	pc, ok := p.m.PathContext(serverID)
	return approval.ServerPlaces{Remote: pc.Remote, Dir: pc.Dir, Roots: pc.Roots, Args: pc.Args, Home: pc.Home}, ok
}

// StartBackground starts what a long-running Cairn (the desktop window, `cairn serve`)
// does on its own: the MCP warmer, which connects to enabled servers without delaying
// anything, and OS notifications for approvals that wait while no window has the focus.
// CLI commands do not call it, so they spawn nothing they do not use.
func (s *Services) StartBackground(ctx context.Context) {
	// The MCP warmer waits until a window has had time to draw (FrontendReady), or
	// warmAfter when no window comes: starting the servers' processes competes for the
	// CPU with the window's own start. Chats meanwhile use the cached tool lists.
	s.warm.mu.Lock()
	s.warm.at = time.Now().Add(s.warmAfter)
	s.warm.timer = time.AfterFunc(s.warmAfter, s.startWarmer)
	s.warm.mu.Unlock()
	s.closers = append(s.closers, func() error {
		s.warm.mu.Lock()
		defer s.warm.mu.Unlock()
		s.warm.timer.Stop()
		return nil
	})
	go notify.Watch(ctx, s.Bus, s.Presence, notify.DBus{AppName: "Cairn"}, s.Log)
}

// afterReady is how long the MCP warmer waits after the first window called Ready: the
// call comes as the window's first frame is committed, before it is painted, and the
// painting and the first requests should not share the CPU with twenty servers starting.
const afterReady = time.Second

// FrontendReady is called when a window starts; the first call brings the MCP warmer
// forward to afterReady from now (see StartBackground).
func (s *Services) FrontendReady() {
	s.warm.mu.Lock()
	defer s.warm.mu.Unlock()
	if s.warm.timer == nil || s.warm.fired || time.Until(s.warm.at) <= afterReady {
		return
	}
	s.warm.at = time.Now().Add(afterReady)
	s.warm.timer.Reset(afterReady)
}

func (s *Services) startWarmer() {
	s.warm.mu.Lock()
	s.warm.fired = true
	s.warm.mu.Unlock()
	s.MCP.Start()
}

// ResumeApproval resumes an interrupted approval request: approval marks it resumed (the
// first window wins) and chat sends its call through the pipeline again, where
// permission asks afresh.
func (s *Services) ResumeApproval(ctx context.Context, id, window string) (approval.Request, error) {
	return s.Approval.Resume(ctx, id, window, s.Chat.ResumeCall)
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

// faviconsOn reads the setting on every request, so turning icons off stops the next
// fetch at once.
func (s *Services) faviconsOn(ctx context.Context) bool {
	v, err := s.Settings.Get(ctx, websearch.SettingFavicons)
	on, _ := v.(bool)
	return err == nil && on
}
