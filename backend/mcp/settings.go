package mcp

import (
	"context"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/mcp/proc"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/tools"
)

// ServerView is a server as a window shows it: its config (secret values masked), its
// runtime status and its cached tools.
type ServerView struct {
	Server
	Status   Status     `json:"status"`
	Tools    []ToolInfo `json:"tools"`
	CachedAt int64      `json:"cachedAt,omitempty"` // unix ms of the catalog; 0 = never warmed
	// Instructions are what the server tells the model (from initialize).
	Instructions string `json:"instructions,omitempty"`
	// RootsModeInEffect is the roots mode the server runs with: RootsMode, or for the
	// automatic mode the one its config decides (none, workspace or folders).
	RootsModeInEffect RootsMode `json:"rootsModeInEffect,omitempty"`
	// Warnings (Save only) name texts that look like credentials but could not be moved
	// to the keyring (mcp_credential_not_moved) and a command not found on the server's
	// PATH (mcp_command_not_found); the save went through.
	Warnings []*apperr.Error `json:"warnings,omitempty"`
}

// Snapshot is the server list of Settings → MCP, stamped with the topic's seq.
type Snapshot struct {
	Seq     uint64       `json:"seq"`
	Servers []ServerView `json:"servers"`
}

// Servers returns every server with status and cached tools (never connects).
func (m *Manager) Servers(ctx context.Context) (Snapshot, error) {
	snap := Snapshot{Servers: []ServerView{}}
	if m.bus != nil {
		snap.Seq = m.bus.Seq(events.TopicMCP)
	}
	list, err := m.db.servers(ctx)
	if err != nil {
		return snap, err
	}
	for _, s := range list {
		v, err := m.view(ctx, s.ID)
		if err != nil {
			continue
		}
		snap.Servers = append(snap.Servers, v)
	}
	return snap, nil
}

// View returns one server's view.
func (m *Manager) View(ctx context.Context, id string) (ServerView, error) { return m.view(ctx, id) }

func (m *Manager) view(ctx context.Context, id string) (ServerView, error) {
	s, err := m.get(id)
	if err != nil {
		return ServerView{}, err
	}
	cfg := s.config()
	v := ServerView{Server: m.mask(cfg), Status: s.status(), Tools: []ToolInfo{}, RootsModeInEffect: cfg.rootsMode()}
	v.Status.OAuth = m.oauthStatus(cfg)
	cat, ok, err := m.db.cache(ctx, id)
	if err != nil {
		return v, err
	}
	if ok {
		prefs, err := m.prefs.Server(ctx, id)
		if err != nil {
			return v, err
		}
		v.Tools = toolInfos(cfg, cat, prefs)
		v.CachedAt = cat.RefreshedAt
		v.Instructions = cat.Instructions
	}
	return v, nil
}

// mask replaces secret values by set / last 4.
func (m *Manager) mask(s Server) Server {
	mask := func(kind string, vs []Var) []Var {
		out := slices.Clone(vs)
		for i, v := range out {
			if !v.Secret {
				continue
			}
			out[i].Value = ""
			if m.secrets != nil {
				if val, ok, err := m.secrets.Get(secretKey(s.ID, kind, v.Name)); err == nil && ok {
					out[i].Set, out[i].Last4 = true, secrets.Mask(val)
				}
			}
		}
		return out
	}
	s.Env = mask("env", s.Env)
	s.Headers = mask("header", s.Headers)
	s.Credentials = slices.Clone(s.Credentials)
	for i, c := range s.Credentials {
		if m.secrets != nil {
			if val, ok, err := m.secrets.Get(secretKey(s.ID, "cred", c.Name)); err == nil && ok {
				s.Credentials[i].Set, s.Credentials[i].Last4 = true, secrets.Mask(val)
			}
		}
	}
	return s
}

// Save adds a server (empty ID) or updates one. Secret values go to the secret store (an
// empty value of a secret keeps the stored one); everything else to SQLite. A change that
// affects how the server runs restarts it; turning it on warms its catalog.
func (m *Manager) Save(ctx context.Context, in Server) (ServerView, error) {
	in = in.clone()
	if err := in.normalize(); err != nil {
		return ServerView{}, err
	}
	if in.Transport == TransportBuiltin {
		return ServerView{}, invalid("built-in servers cannot be edited, only turned on or off")
	}
	var old *Server
	if in.ID == "" {
		in.ID = newID()
	} else {
		s, err := m.get(in.ID)
		if err != nil {
			return ServerView{}, err
		}
		o := s.config()
		if o.Transport == TransportBuiltin {
			return ServerView{}, invalid("built-in servers cannot be edited, only turned on or off")
		}
		old = &o
	}
	if err := m.checkName(in); err != nil {
		return ServerView{}, err
	}
	if in.TrustReadOnlyHints == nil {
		in = in.withTrust(old == nil || old.trustsHints())
	}
	ch, err := m.prepare(in, old)
	if err != nil {
		return ServerView{}, err
	}
	if err := m.commit(ctx, []change{ch}); err != nil {
		return ServerView{}, err
	}
	m.applyChanges(ctx, []change{ch})
	v, err := m.view(ctx, ch.stored.ID)
	v.Warnings = ch.warnings
	return v, err
}

func (m *Manager) checkName(in Server) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, s := range m.servers {
		if id != in.ID && strings.EqualFold(s.config().Name, in.Name) {
			return apperr.New(apperr.MCPServerExists, "mcp server %q exists", in.Name).WithParam("name", in.Name)
		}
	}
	return nil
}

// apply brings the runtime in line with a config already stored.
// force restarts even when the stored config is the same (a secret value changed).
func (m *Manager) apply(ctx context.Context, cfg Server, old *Server, force bool) {
	m.applyChanges(ctx, []change{{stored: cfg, old: old, newSecret: force}})
}

// Delete removes a server: stops it, forgets its secrets, cache, prefs and tools.
func (m *Manager) Delete(ctx context.Context, id string) error {
	s, err := m.get(id)
	if err != nil {
		return err
	}
	cfg := s.config()
	if cfg.Transport == TransportBuiltin {
		return invalid("built-in servers cannot be removed, only turned off")
	}
	s.retire()
	if err := m.db.delete(ctx, id); err != nil {
		return err
	}
	m.forgetSignIn(ctx, id)
	if m.secrets != nil {
		for _, key := range secretKeys(cfg) {
			_ = m.secrets.Delete(ctx, key)
		}
	}
	m.mu.Lock()
	delete(m.servers, id)
	m.mu.Unlock()
	_ = s.log.Close()
	s.live.close()
	m.syncServer(ctx, id)
	m.publish(TypeServerRemoved, map[string]string{"id": id})
	return nil
}

// SetEnabled turns a server on (connect and warm its catalog) or off (stop it and take
// its tools away from the model).
func (m *Manager) SetEnabled(ctx context.Context, id string, on bool) (ServerView, error) {
	s, err := m.get(id)
	if err != nil {
		return ServerView{}, err
	}
	old := s.config()
	if old.Enabled == on {
		return m.view(ctx, id)
	}
	if err := m.db.setEnabled(ctx, id, on); err != nil {
		return ServerView{}, err
	}
	cfg := old.clone()
	cfg.Enabled = on
	m.apply(ctx, cfg, &old, false)
	return m.view(ctx, id)
}

// SetTrustReadOnlyHints says whether the tools a server annotates read-only run without
// asking (on, the default) or ask like any other tool (off). The registry follows at
// once; the server keeps running.
func (m *Manager) SetTrustReadOnlyHints(ctx context.Context, id string, on bool) (ServerView, error) {
	s, err := m.get(id)
	if err != nil {
		return ServerView{}, err
	}
	old := s.config()
	if old.trustsHints() == on {
		return m.view(ctx, id)
	}
	cfg := old.withTrust(on)
	if err := m.db.upsert(ctx, cfg); err != nil {
		return ServerView{}, err
	}
	m.apply(ctx, cfg, &old, false)
	return m.view(ctx, id)
}

// SetToolEnabled offers or withholds one tool of a server to the model.
func (m *Manager) SetToolEnabled(ctx context.Context, id, tool string, on bool) (ServerView, error) {
	return m.updatePref(ctx, id, tool, func(p *tools.Pref) { p.Enabled = on })
}

// SetToolApproval sets whether calls of one tool ask the user first ("" = default: ask
// unless the tool is annotated read-only).
func (m *Manager) SetToolApproval(ctx context.Context, id, tool string, a Approval) (ServerView, error) {
	switch a {
	case ApprovalDefault, ApprovalAsk, ApprovalAllow:
	default:
		return ServerView{}, invalid("approval must be \"\", \"ask\" or \"allow\"")
	}
	return m.updatePref(ctx, id, tool, func(p *tools.Pref) { p.Approval = a })
}

// updatePref changes one tool's choice in the one store (tools.Prefs); prefChanged then
// resyncs the server's entries and publishes its view.
func (m *Manager) updatePref(ctx context.Context, id, tool string, f func(*tools.Pref)) (ServerView, error) {
	if _, err := m.get(id); err != nil {
		return ServerView{}, err
	}
	if strings.TrimSpace(tool) == "" {
		return ServerView{}, invalid("no tool named")
	}
	if _, err := m.prefs.Update(ctx, tools.PrefKey{Server: id, Tool: tool}, f); err != nil {
		return ServerView{}, err
	}
	return m.view(ctx, id)
}

// Refresh re-reads a server's tool list now (the user's "refresh"), connecting if needed,
// and returns the updated view.
func (m *Manager) Refresh(ctx context.Context, id string) (ServerView, error) {
	if _, err := m.RefreshTools(ctx, id); err != nil {
		return ServerView{}, err
	}
	return m.view(ctx, id)
}

// Restart stops a server (its whole process group) and starts it again, resetting the
// crash backoff; it returns once the new connection is up or failed.
func (m *Manager) Restart(ctx context.Context, id string) (ServerView, error) {
	s, err := m.get(id)
	if err != nil {
		return ServerView{}, err
	}
	if !s.config().Enabled {
		return m.view(ctx, id)
	}
	s.stop(StateIdle, nil)
	s.mu.Lock()
	s.restarts = 0
	s.mu.Unlock()
	s.log.Eventf("restart requested")
	if _, err := m.RefreshTools(ctx, id); err != nil {
		return ServerView{}, err
	}
	return m.view(ctx, id)
}

// Logs returns a server's last log lines (n <= 0: all in memory).
func (m *Manager) Logs(id string, n int) ([]logring.Line, error) {
	s, err := m.get(id)
	if err != nil {
		return nil, err
	}
	return s.log.Lines(n), nil
}

// TestReport is the outcome of "test" in Settings: did a connection with this config
// work, what did the server say, and what did it log.
type TestReport struct {
	OK             bool           `json:"ok"`
	Error          *apperr.Error  `json:"error,omitempty"`
	Transport      Transport      `json:"transport,omitempty"`
	FallbackStatus int            `json:"fallbackStatus,omitempty"`
	ServerInfo     ServerInfo     `json:"serverInfo"`
	Tools          []string       `json:"tools"`
	DurationMs     int64          `json:"durationMs"`
	Log            []logring.Line `json:"log"`
}

// Test connects with a config that may be unsaved (secrets left empty are taken from the
// stored server of the same ID), lists its tools and disconnects. It touches neither the
// running server nor the catalog.
func (m *Manager) Test(ctx context.Context, in Server) (TestReport, error) {
	in = in.clone()
	if in.Transport == "" && in.ID != "" && in.Command == "" && in.URL == "" {
		s, err := m.get(in.ID)
		if err != nil {
			return TestReport{}, err
		}
		in = s.config()
	}
	if err := in.normalize(); err != nil {
		return TestReport{}, err
	}
	id := in.ID
	if id == "" {
		id = "test-" + newID()
	}
	tmp := &server{m: m, id: id, cfg: in, log: logring.New(200, "", nil)}
	rc, err := m.resolve(in)
	if err != nil {
		return TestReport{}, err
	}
	for _, kv := range []struct {
		kind string
		vs   []Var
		dst  map[string]string
	}{{"env", in.Env, rc.env}, {"header", in.Headers, rc.headers}} {
		for _, v := range kv.vs {
			if v.Secret && v.Value != "" {
				kv.dst[v.Name] = v.Value // typed in the form, not stored yet
			}
		}
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, in.connectTimeout(m.opt.ConnectTimeout))
	defer cancel()
	rep := TestReport{Tools: []string{}}
	c, err := m.dial(cctx, tmp, rc)
	if err == nil {
		rep.Transport, rep.FallbackStatus, rep.ServerInfo = c.transport, c.fellBack, c.info
		for t, lerr := range c.cs.Tools(cctx, nil) {
			if lerr != nil {
				err = apperr.Wrap(lerr, apperr.MCPConnectFailed, "list tools").
					WithParam("server", in.Name).WithParam("message", lerr.Error())
				break
			}
			rep.Tools = append(rep.Tools, t.Name)
		}
		c.close()
	}
	rep.DurationMs = time.Since(start).Milliseconds()
	rep.OK = err == nil
	rep.Error = errOf(err)
	rep.Log = tmp.log.Lines(0)
	return rep, nil
}

// EnvVar is one variable a stdio server's process gets, by name only: values (secret or
// not) never leave the backend this way.
type EnvVar struct {
	Name string `json:"name"`
	// Source is "inherited" (from Cairn's environment or the login shell's, see
	// proc.Inherited), "config" (the server's configuration), "secret" (a secret of its
	// configuration, from the keyring) or "cairn" (proc.MarkerEnv, which Cairn sets to find
	// the processes the server starts). A configured name that is also inherited is
	// reported once, as configured.
	Source string `json:"source"`
}

// The sources of an EnvVar.
const (
	EnvInherited = "inherited"
	EnvConfig    = "config"
	EnvSecret    = "secret"
	EnvCairn     = "cairn"
)

// Environment lists the names of the variables a stdio server starts with (none for a
// remote or built-in server), sorted. The first call may wait for the login shell
// (bounded by Options.ShellTimeout).
func (m *Manager) Environment(ctx context.Context, id string) ([]EnvVar, error) {
	s, err := m.get(id)
	if err != nil {
		return nil, err
	}
	cfg := s.config()
	out := []EnvVar{}
	if cfg.Transport != TransportStdio {
		return out, nil
	}
	configured := map[string]string{}
	for _, v := range cfg.Env {
		configured[v.Name] = EnvConfig
		if v.Secret {
			configured[v.Name] = EnvSecret
		}
	}
	names := map[string]string{}
	if cfg.sandboxed() {
		for _, k := range m.sandboxEnvNames(cfg) {
			names[k] = EnvCairn
		}
	} else {
		for _, kv := range proc.ChildEnv(runtime.GOOS, os.Environ(), m.loginEnv(), nil) {
			if k, _, ok := strings.Cut(kv, "="); ok {
				names[k] = EnvInherited
			}
		}
	}
	maps.Copy(names, configured)
	if m.pids != nil { // proc.Start adds the marker to servers a registry tracks
		names[proc.MarkerEnv] = EnvCairn
	}
	for k, src := range names {
		out = append(out, EnvVar{Name: k, Source: src})
	}
	slices.SortFunc(out, func(a, b EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
