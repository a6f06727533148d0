// Package mcp is Cairn's MCP client side (MCP-1..4): the servers a user configured, run
// as owned child processes (stdio), over Streamable HTTP with SSE fallback, or in process;
// a tool catalog cached in SQLite that is read without ever connecting and refreshed by a
// background warmer; the sync of those tools into the tool registry; and import / export
// of the `mcpServers` JSON other desktop clients use.
package mcp

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp/proc"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Event types on topic events.TopicMCP.
const (
	TypeServer        = "mcp:server"         // data: ServerView (config, status, tools)
	TypeServerRemoved = "mcp:server-removed" // data: {"id": …}
	TypeLog           = "mcp:log"            // data: LogEvent
)

// State is where a server is in its life.
type State string

// The states shown in Settings.
const (
	StateDisabled State = "disabled" // turned off by the user
	StateIdle     State = "idle"     // enabled, not connected in this process (yet)
	StateStarting State = "starting" // connecting / initializing
	StateReady    State = "ready"    // connected
	StateError    State = "error"    // the last attempt failed; Error says why; a restart may follow
	// StateFailed: the server cannot start, and a restart on a timer would fail the same
	// way (server.failedForGoodLocked); it waits for the user. Error says why.
	StateFailed State = "failed"
	// StateNeedsSignIn: a remote server refused Cairn and takes OAuth tokens; it waits
	// for the user to sign in (Error is mcp_auth_required with a "mcp-sign-in" action).
	StateNeedsSignIn State = "needs-sign-in"
)

// SecretStore keeps secret env and header values (secrets.Store implements it).
type SecretStore interface {
	Get(name string) (value string, ok bool, err error)
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
}

// Options tune the runtime; zero values pick the defaults.
type Options struct {
	// ConnectTimeout bounds start-up and initialize of servers without their own
	// (DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// StopGrace is how long a stdio server gets after stdin closes, and again after
	// SIGTERM, before the group is killed (2 s).
	StopGrace time.Duration
	// RestartMin and RestartMax bound the backoff between restarts after a crash or a
	// failed start (1 s doubling up to 60 s); MaxRestarts consecutive failures stop the
	// retries until the user restarts the server (5).
	RestartMin  time.Duration
	RestartMax  time.Duration
	MaxRestarts int
	// StableAfter is how long a server must stay up for the backoff to reset (30 s).
	StableAfter time.Duration
	// LoginShell is the shell whose login environment servers get; "" means $SHELL and
	// "-" skips it. ShellTimeout bounds it (5 s).
	LoginShell   string
	ShellTimeout time.Duration
	// LogLines is the size of each server's in-memory log (logring.DefaultCapacity).
	LogLines int
	// Now is the clock for protocol re-probes (time.Now); tests move it.
	Now func() time.Time
}

// Config is what New needs.
type Config struct {
	DB       *store.DB
	Bus      *events.Bus
	Secrets  SecretStore     // nil: secret values cannot be stored
	Registry *tools.Registry // nil: attach later with AttachRegistry
	// Prefs is the one store of per-tool choices (service shares it with the pipeline and
	// Settings → Tools); nil makes one over DB.
	Prefs   *tools.Prefs
	DataDir string // logs go to <DataDir>/logs/mcp, pid records to <DataDir>/mcp/run
	Log     *slog.Logger
	Options Options
	// OAuth is a raw go-sdk OAuth handler per remote server (the conformance harness
	// plugs go-sdk's authorization code handler in here); it takes precedence over SignIn.
	OAuth func(Server) auth.OAuthHandler
	// SignIn is Cairn's OAuth sign-in of remote servers (oauth.Broker): tokens from the
	// keyring, renewal, the browser sign-in, "needs sign-in" instead of a bare 401. Nil
	// means remote servers get only their configured headers.
	SignIn SignIn
	// Elicit answers servers' elicitation/create requests; nil means Cairn advertises no
	// elicitation capability, so servers do not ask.
	Elicit ElicitFunc
	// Workspace is a task session's workspace folder ("" for a session without one); the
	// workspace of the session that calls a tool is offered as a root to servers that are
	// offered roots. Nil offers none.
	Workspace func(ctx context.Context, sessionID string) (string, error)
	// Redact cleans every line of a server's log (its stderr, its log notifications, what
	// Cairn notes) before it is kept, written to the log file or published; nil keeps them.
	Redact func(string) string
	// Sandbox starts the servers set to run sandboxed; nil makes one over DataDir on first
	// use (tests give theirs, whose helper is the test binary).
	Sandbox *confine.Sandbox
}

// Manager owns every configured MCP server of one Cairn process. Create one per process
// (service.Services); all methods are safe for concurrent use.
type Manager struct {
	db      db
	bus     *events.Bus
	secrets SecretStore
	log     *slog.Logger
	opt     Options
	dataDir string
	oauth   func(Server) auth.OAuthHandler
	signIn  SignIn
	elicit  ElicitFunc
	space   func(ctx context.Context, sessionID string) (string, error)
	redact  func(string) string
	http    http.RoundTripper
	pids    *proc.Registry
	prefs   *tools.Prefs

	sbOnce sync.Once
	sb     *confine.Sandbox
	sbErr  error

	ctx    context.Context // ends at Close: background work stops
	cancel context.CancelFunc
	wg     sync.WaitGroup

	progress *progressRouter
	running  runningCalls // tool calls in flight, for elicitation requests

	envOnce sync.Once
	env     map[string]string

	// mu guards the fields below. Lock order: mu before any server's mu, never the
	// other way round.
	mu       sync.Mutex
	reg      *tools.Registry
	servers  map[string]*server
	builtins map[string]Builtin
	started  bool
	closed   bool
}

// warmStagger is the gap between the warmer's connects at Start.
const warmStagger = 25 * time.Millisecond

// New loads the configured servers and syncs their cached tools into the registry. It
// connects to nothing: Start launches the warmer. It also ends the process groups a
// killed Cairn left behind.
func New(ctx context.Context, cfg Config) (*Manager, error) {
	opt := cfg.Options
	opt.ConnectTimeout = cmp.Or(opt.ConnectTimeout, DefaultConnectTimeout)
	opt.StopGrace = cmp.Or(opt.StopGrace, 2*time.Second)
	opt.RestartMin = cmp.Or(opt.RestartMin, time.Second)
	opt.RestartMax = cmp.Or(opt.RestartMax, time.Minute)
	opt.MaxRestarts = cmp.Or(opt.MaxRestarts, 5)
	opt.StableAfter = cmp.Or(opt.StableAfter, 30*time.Second)
	opt.ShellTimeout = cmp.Or(opt.ShellTimeout, 5*time.Second)
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	bctx, cancel := context.WithCancel(context.Background())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	m := &Manager{
		db: db{cfg.DB}, bus: cfg.Bus, secrets: cfg.Secrets, log: log, opt: opt, dataDir: cfg.DataDir,
		oauth: cfg.OAuth, signIn: cfg.SignIn, elicit: cfg.Elicit, space: cfg.Workspace, redact: cfg.Redact, http: tr, ctx: bctx, cancel: cancel,
		progress: newProgressRouter(), prefs: cfg.Prefs, sb: cfg.Sandbox,
		reg: cfg.Registry, servers: map[string]*server{}, builtins: map[string]Builtin{},
	}
	if m.signIn != nil {
		m.signIn.OnChange(m.signInNote)
	}
	if m.prefs == nil {
		m.prefs = tools.NewPrefs(cfg.DB.DB, cfg.Bus, cfg.Registry)
	}
	m.prefs.Watch(m.prefChanged)
	if cfg.DataDir != "" {
		run := filepath.Join(cfg.DataDir, "mcp", "run")
		if n := proc.SweepOrphans(run); n > 0 {
			log.Warn("mcp: ended processes a previous Cairn left running", "count", n)
		}
		m.pids = proc.NewRegistry(run)
	}
	list, err := m.db.servers(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	saved, err := m.db.statuses(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	for _, s := range list {
		srv := m.newServer(s)
		if st, ok := saved[s.ID]; ok && s.Enabled && recordedState(st.State) {
			srv.restoreLocked(st) // not shared yet: no lock needed
		}
		m.servers[s.ID] = srv
	}
	m.syncAll(ctx)
	return m, nil
}

// prefChanged follows a change of one tool's choice, made here or in Settings → Tools:
// the server's entries carry the approval, its view the switch.
func (m *Manager) prefChanged(k tools.PrefKey) {
	if k.Server == "" {
		return
	}
	if _, err := m.get(k.Server); err != nil {
		return
	}
	m.syncServer(m.ctx, k.Server)
	m.publishServer(k.Server)
}

// AttachRegistry makes the manager keep reg in sync with the catalog (MCP tools in
// namespaces mcp:<serverId>) and syncs every server from the cache right away.
func (m *Manager) AttachRegistry(ctx context.Context, reg *tools.Registry) {
	m.mu.Lock()
	m.reg = reg
	m.mu.Unlock()
	m.syncAll(ctx)
}

// RegisterBuiltin adds (or updates) an in-process server. It appears in the server list
// like any other, enabled unless the user turned it off before.
func (m *Manager) RegisterBuiltin(ctx context.Context, b Builtin) error {
	if b.ID == "" || b.New == nil {
		return invalid("a built-in server needs an id and a constructor")
	}
	m.mu.Lock()
	m.builtins[b.ID] = b
	s := m.servers[b.ID]
	m.mu.Unlock()
	cfg := Server{ID: b.ID, Name: b.Name, Transport: TransportBuiltin, Enabled: true}
	if s != nil {
		cfg = s.config()
		cfg.Name = b.Name
	}
	if err := m.db.upsert(ctx, cfg); err != nil {
		return err
	}
	if s == nil {
		m.mu.Lock()
		m.servers[b.ID] = m.newServer(cfg)
		m.mu.Unlock()
	}
	m.syncServer(ctx, b.ID)
	m.mu.Lock()
	warm := m.started && cfg.Enabled
	m.mu.Unlock()
	if warm {
		m.requestRefresh(b.ID)
	}
	return nil
}

// Start launches the background warmer: every enabled server is connected and its tool
// list refreshed, each on its own, so a dead or slow server delays nothing else. It
// returns at once. Calling it again does nothing.
func (m *Manager) Start() {
	m.mu.Lock()
	if m.started || m.closed {
		m.mu.Unlock()
		return
	}
	m.started = true
	var ids []string
	for id, s := range m.servers {
		if s.config().Enabled {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	slices.Sort(ids)
	if len(ids) == 0 {
		return
	}
	// One server after another, warmStagger apart: twenty `npx` servers starting in the
	// same instant would take the CPU from the window that is starting too. A server that
	// hangs delays no other: each connects on its own.
	m.goBackground(func() {
		for i, id := range ids {
			if i > 0 {
				select {
				case <-m.ctx.Done():
					return
				case <-time.After(warmStagger):
				}
			}
			m.requestRefresh(id)
		}
	})
}

// Close stops every server (process groups included) and waits for background work.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.retire()
			_ = s.log.Close()
			s.live.close()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

// go runs background work that Close waits for.
func (m *Manager) goBackground(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

func (m *Manager) now() time.Time {
	if m.opt.Now != nil {
		return m.opt.Now()
	}
	return time.Now()
}

func (m *Manager) get(id string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.servers[id]; ok {
		return s, nil
	}
	return nil, notFound(id)
}

// Resolve finds a server by id, or else by name (case-insensitive), for the CLI.
func (m *Manager) Resolve(idOrName string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.servers[idOrName]; ok {
		return idOrName, nil
	}
	for id, s := range m.servers {
		if strings.EqualFold(s.config().Name, idOrName) {
			return id, nil
		}
	}
	return "", notFound(idOrName)
}

func notFound(id string) *apperr.Error {
	return apperr.New(apperr.MCPServerNotFound, "no mcp server %s", apperr.Quote(id)).WithParam("server", apperr.Quote(id))
}

func (m *Manager) logPath(id string) string {
	if m.dataDir == "" {
		return ""
	}
	return filepath.Join(m.dataDir, "logs", "mcp", id+".log")
}

// LogFile is where a server's log is appended (for `cairn mcp logs` in another process).
func LogFile(dataDir, id string) string { return filepath.Join(dataDir, "logs", "mcp", id+".log") }

// loginEnv resolves the login shell's environment once per process (bounded by
// ShellTimeout, whatever the caller's deadline, so a short connect timeout cannot leave
// every later server without it); when it fails servers get Cairn's own. Only its
// inherited variables (proc.Inherited) ever reach a server.
func (m *Manager) loginEnv() map[string]string {
	m.envOnce.Do(func() {
		if m.opt.LoginShell == "-" {
			return
		}
		env, err := proc.LoginEnv(m.ctx, m.opt.LoginShell, m.opt.ShellTimeout)
		if err != nil {
			m.log.Warn("mcp: login shell environment not available; using Cairn's", "err", err)
			return
		}
		m.env = env
	})
	return m.env
}

// resolve adds the secret values to a config: secret env and header values, and the
// moved credentials its texts refer to (placeholders of credentials not stored become
// empty).
func (m *Manager) resolve(s Server) (resolved, error) {
	rc := resolved{Server: s, env: map[string]string{}, headers: map[string]string{}}
	creds, err := m.credentialValues(s)
	if err != nil {
		return rc, err
	}
	get := func(kind string, v Var) (string, error) {
		if !v.Secret {
			return expand(v.Value, creds), nil
		}
		if m.secrets == nil {
			return "", nil
		}
		val, _, err := m.secrets.Get(secretKey(s.ID, kind, v.Name))
		return val, err
	}
	for _, v := range s.Env {
		val, err := get("env", v)
		if err != nil {
			return rc, err
		}
		rc.env[v.Name] = val
	}
	for _, v := range s.Headers {
		val, err := get("header", v)
		if err != nil {
			return rc, err
		}
		rc.headers[v.Name] = val
	}
	for _, a := range s.Args {
		rc.args = append(rc.args, expand(a, creds))
	}
	rc.url = expand(s.URL, creds)
	return rc, nil
}

// credentialValues reads the values of the credentials a config's texts refer to.
func (m *Manager) credentialValues(s Server) (map[string]string, error) {
	out := map[string]string{}
	if m.secrets == nil {
		return out, nil
	}
	for _, f := range plainFields(&s) {
		for _, sub := range placeholderRE.FindAllStringSubmatch(*f.text, -1) {
			if _, done := out[sub[1]]; done {
				continue
			}
			v, _, err := m.secrets.Get(secretKey(s.ID, "cred", sub[1]))
			if err != nil {
				return nil, err
			}
			out[sub[1]] = v
		}
	}
	return out, nil
}

func (m *Manager) publish(typ string, data any) {
	if m.bus != nil {
		m.bus.Publish(events.TopicMCP, typ, data)
	}
}

// publishServer records a server's state (recordStatus) and broadcasts its current view.
// Every state change is followed by it.
func (m *Manager) publishServer(id string) {
	if s, err := m.get(id); err == nil {
		m.recordStatus(s)
	}
	if m.bus == nil {
		return
	}
	v, err := m.view(m.ctx, id)
	if err != nil {
		return
	}
	m.publish(TypeServer, v)
}

// errOf turns any error into the apperr a window renders.
func errOf(err error) *apperr.Error {
	if err == nil {
		return nil
	}
	return apperr.From(err)
}

var errStale = errors.New("the server was restarted or turned off while connecting")

// ServerIdentity is what an "always allow" of a server's tool is bound to (the approval
// service's Servers): the command line of a stdio server, the URL of a remote one. A
// server whose command or URL changed no longer matches old approvals.
func (m *Manager) ServerIdentity(serverID string) (string, bool) {
	s, err := m.get(serverID)
	if err != nil {
		return "", false
	}
	cfg := s.config()
	switch cfg.Transport {
	case TransportStdio:
		parts := append([]string{cfg.Command}, cfg.Args...)
		for i, p := range parts {
			if p == "" || strings.ContainsAny(p, " \t\"'") {
				parts[i] = strconv.Quote(p)
			}
		}
		return "stdio:" + strings.Join(parts, " "), true
	case TransportBuiltin:
		return "builtin:" + cfg.ID, true
	default:
		return string(cfg.Transport) + ":" + cfg.URL, true
	}
}
