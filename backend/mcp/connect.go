package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/mcp/oauth"
	"github.com/cairn-app/cairn/backend/mcp/proc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LegacyProtocolVersion is the newest version negotiated with the initialize handshake.
// go-sdk's default (2026-07-28, SEP-2575) first probes with server/discover, a round
// trip that most servers of today answer with an error before the initialize that
// follows. Cairn offers the probe on first contact (so a server that speaks the newer
// protocol gets it) and remembers the answer in the tool cache: a server that chose
// initialize is asked with this version directly for reprobeAfter, then offered the
// probe again in case it was upgraded.
const LegacyProtocolVersion = "2025-11-25"

// modernProtocolVersion is the first version negotiated through server/discover.
const modernProtocolVersion = "2026-07-28"

// reprobeAfter is how long a server that answered server/discover with an error is
// spared the probe.
const reprobeAfter = 7 * 24 * time.Hour

// conn is one live session with a server.
type conn struct {
	cs        *mcp.ClientSession
	proc      *proc.Process // stdio only
	stderr    *procStderr   // stdio only: what this process wrote to stderr
	transport Transport     // what is actually spoken (sse after a fallback)
	fellBack  int           // the HTTP status that made Cairn fall back to SSE, if any
	extra     func()        // builtin: closes the server side
	info      ServerInfo
	instr     string
	client    *mcp.Client // the go-sdk client: roots are added and removed on it

	rootsMu   sync.Mutex
	workspace string // the session workspace offered as a root beside the configured ones
	wsSession string // the task session whose workspace that is
}

func (c *conn) close() {
	_ = c.cs.Close() // for stdio this stops the process group (stdioWriter.Close)
	if c.proc != nil {
		c.proc.KillGroup()
	}
	if c.extra != nil {
		c.extra()
	}
}

// resolved is a server config with its secret values, ready to start. Server keeps the
// placeholders of moved credentials (for logs and errors); args and url have the values.
type resolved struct {
	Server
	env     map[string]string
	headers map[string]string
	args    []string
	url     string
}

// dial connects to a server: starts the process or opens the HTTP session, negotiates
// the protocol (see LegacyProtocolVersion), and classifies failures into the apperr
// codes a user can act on.
func (m *Manager) dial(ctx context.Context, s *server, rc resolved) (*conn, error) {
	s.mu.Lock()
	skip := s.probeTimedOut
	s.mu.Unlock()
	probe, probedAt := false, int64(0)
	if rc.Transport != TransportBuiltin && !skip {
		probe, probedAt = m.shouldProbe(ctx, s.id, rc.Transport)
	}
	c, err := m.dialOnce(ctx, s, rc, probe)
	if err != nil && probe && apperr.Is(err, apperr.MCPConnectTimeout) {
		s.mu.Lock()
		s.probeTimedOut = true
		s.mu.Unlock()
		s.log.Eventf("no answer after offering server/discover; the next connect uses initialize only")
	}
	if err != nil && probe && retryWithoutProbe(err) {
		// A server that mishandles a request before initialize (some exit, some close
		// the session) still gets a clean initialize-only connection, and is not probed
		// again for reprobeAfter. A stdio server is probed only once it has connected
		// (shouldProbe), so this second start is never that of a server that cannot start.
		s.log.Eventf("connecting with server/discover failed (%v); trying initialize only", err)
		c, err = m.dialOnce(ctx, s, rc, false)
	}
	if err != nil {
		return nil, err
	}
	if res := c.cs.InitializeResult(); res != nil {
		c.instr = res.Instructions
		c.info.ProtocolVersion = res.ProtocolVersion
		c.info.Resources = res.Capabilities != nil && res.Capabilities.Resources != nil
		if res.ServerInfo != nil {
			c.info.Name, c.info.Title, c.info.Version = res.ServerInfo.Name, res.ServerInfo.Title, res.ServerInfo.Version
		}
	}
	if probe || skip { // offered now, or earlier in this process without an answer
		c.info.ProbedAt = m.now().UnixMilli()
	} else {
		c.info.ProbedAt = probedAt
	}
	return c, nil
}

// shouldProbe says whether to offer server/discover: on first contact, to a server that
// negotiated the newer protocol last time, and again reprobeAfter since the last offer.
// A stdio server is not probed before it has once connected: a process that exits on the
// probe cannot be told from one that cannot start at all, and retrying it without the
// probe would start a failing server twice per attempt (mixing two runs' stderr). It also
// returns when the probe was last offered, which the connection keeps.
func (m *Manager) shouldProbe(ctx context.Context, id string, t Transport) (bool, int64) {
	cat, ok, err := m.db.cache(ctx, id)
	if err != nil || !ok {
		return t != TransportStdio, 0
	}
	info := cat.ServerInfo
	if info.ProtocolVersion == "" || info.ProtocolVersion >= modernProtocolVersion {
		return true, info.ProbedAt
	}
	return m.now().Sub(time.UnixMilli(info.ProbedAt)) >= reprobeAfter, info.ProbedAt
}

// retryWithoutProbe reports whether a connect that offered server/discover failed in a
// way an initialize-only connect may not (not a timeout, sign-in, refusal or a missing
// command, which would fail the same way again).
func retryWithoutProbe(err error) bool {
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		return false
	}
	return ae.Code == apperr.MCPConnectFailed || ae.Code == apperr.MCPExited
}

func (m *Manager) dialOnce(ctx context.Context, s *server, rc resolved, probe bool) (*conn, error) {
	client := m.newClient(s, rc.Server)
	opts := &mcp.ClientSessionOptions{ProtocolVersion: LegacyProtocolVersion}
	if probe {
		opts.ProtocolVersion = "" // go-sdk's newest: server/discover, then initialize
	}
	var c *conn
	var err error
	switch rc.Transport {
	case TransportStdio:
		c, err = m.dialStdio(ctx, s, client, opts, rc)
	case TransportHTTP, TransportSSE:
		c, err = m.dialHTTP(ctx, s, client, opts, rc)
	case TransportBuiltin:
		c, err = m.dialBuiltin(ctx, s, client, opts)
	default:
		return nil, invalid(fmt.Sprintf("unknown transport %q", rc.Transport))
	}
	if c != nil {
		c.client = client // its roots change with the calling session's workspace
	}
	return c, err
}

// newClient builds the go-sdk client of one connection. Capabilities are deliberate: roots
// only when the server's roots mode offers them (go-sdk would advertise roots to every
// server, and server-filesystem would then trade the folders of its arguments for them),
// and elicitation only when Config.Elicit is set.
func (m *Manager) newClient(s *server, cfg Server) *mcp.Client {
	caps := &mcp.ClientCapabilities{}
	if cfg.offersRoots() {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	id := s.id
	opts := &mcp.ClientOptions{
		Logger:       slog.New(slog.DiscardHandler),
		Capabilities: caps,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.log.Eventf("the server announced a new tool list")
			m.requestRefresh(id)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			m.progress.deliver(req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if req.Params != nil {
				s.log.Add("server", fmt.Sprintf("[%s] %v", req.Params.Level, req.Params.Data))
			}
		},
	}
	m.onListChanged(s, opts)
	if m.elicit != nil {
		// Setting the handler makes go-sdk advertise elicitation (form mode); it checks
		// the answer against the requested schema and fills in the schema's defaults.
		opts.ElicitationHandler = m.elicitHandler(s)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "cairn", Title: "Cairn", Version: buildinfo.Get().Version}, opts)
	if !cfg.offersRoots() {
		return c
	}
	for _, r := range cfg.Roots {
		c.AddRoots(&mcp.Root{URI: fileURI(r), Name: filepath.Base(r)})
	}
	return c
}

func fileURI(p string) string {
	if strings.HasPrefix(p, "file://") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// --- stdio ---

// lookCommand finds a stdio server's command as its start does: on the PATH of the
// environment the server gets, relative to its working directory. searched is that PATH.
func lookCommand(command string, env []string, dir string) (path, searched string, err error) {
	path, err = proc.LookPath(command, proc.EnvValue(env, "PATH"), dir)
	var nf *proc.NotFoundError
	if errors.As(err, &nf) {
		searched = strings.Join(nf.Searched, string(os.PathListSeparator))
	}
	return path, searched, err
}

func commandNotFound(err error, server, command, searched string) *apperr.Error {
	return apperr.Wrap(err, apperr.MCPCommandNotFound, "mcp server %s", server).
		WithParam("server", server).WithParam("command", command).WithParam("path", searched)
}

// missingCommand warns, when a stdio server is saved or imported, that its command is not
// found where it would start, so the user hears it at once instead of from a failed start.
// A command that names a credential placeholder is left to the start.
func (m *Manager) missingCommand(in Server) *apperr.Error {
	if in.Transport != TransportStdio || in.Command == "" || strings.Contains(in.Command, placeholderOpen) {
		return nil
	}
	plain := map[string]string{}
	for _, v := range in.Env {
		if !v.Secret {
			plain[v.Name] = v.Value
		}
	}
	env := proc.ChildEnv(runtime.GOOS, os.Environ(), m.loginEnv(), plain)
	if _, searched, err := lookCommand(in.Command, env, in.Cwd); err != nil {
		return commandNotFound(err, in.Name, in.Command, searched)
	}
	return nil
}

func (m *Manager) dialStdio(ctx context.Context, s *server, client *mcp.Client, opts *mcp.ClientSessionOptions, rc resolved) (*conn, error) {
	env := proc.ChildEnv(runtime.GOOS, os.Environ(), m.loginEnv(), rc.env)
	dir := rc.Cwd
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, invalid(fmt.Sprintf("the working directory %s does not exist", dir))
		}
	}
	path, searched, err := lookCommand(rc.Command, env, dir)
	if err != nil {
		s.log.Eventf("command %q not found; searched %s", rc.Command, searched)
		return nil, commandNotFound(err, rc.Name, rc.Command, searched)
	}
	out := &procStderr{ended: make(chan struct{})}
	dec := logring.NewDecoder(func(line string) {
		s.log.Add(logring.StreamStderr, line)
		if m.redact != nil {
			line = m.redact(line)
		}
		out.add(line)
	})
	spec := proc.Spec{Path: path, Args: rc.args, Env: env, Dir: dir, Stderr: dec, Registry: m.pids}
	how := ""
	if rc.sandboxed() {
		if spec.Launch, spec.Env, err = m.sandboxLaunch(ctx, rc, path); err != nil {
			s.log.Eventf("not started: %s", errOf(err).Message)
			return nil, err
		}
		spec.Args = sandboxArgs(rc.args)
		how = " in the sandbox"
	}
	p, err := proc.Start(spec)
	if err != nil {
		s.log.Eventf("cannot start %s%s: %v", path, how, err)
		return nil, apperr.Wrap(err, apperr.MCPConnectFailed, "start %s", path).
			WithParam("server", rc.Name).WithParam("message", err.Error())
	}
	s.log.Eventf("started %s%s (pid %d)", strings.Join(append([]string{path}, rc.Args...), " "), how, p.Pid())
	go func() {
		<-p.Done()
		dec.Flush()
		close(out.ended)
		s.log.Eventf("process %d %s", p.Pid(), p.Describe())
	}()
	t := &stdioTransport{p: p, grace: m.opt.StopGrace, log: s.log}
	cs, err := client.Connect(ctx, t, opts)
	if err != nil {
		_ = p.Stop(m.opt.StopGrace / 4)
		return nil, m.stdioError(ctx, rc, p, out, t.answered.Load(), err)
	}
	return &conn{cs: cs, proc: p, stderr: out, transport: TransportStdio}, nil
}

// stdioError explains why initialize failed: the process died (with the first meaningful
// line of its own stderr), the deadline passed, or the protocol went wrong.
func (m *Manager) stdioError(ctx context.Context, rc resolved, p *proc.Process, out *procStderr, answered bool, err error) error {
	select {
	case <-out.ended:
	case <-time.After(time.Second):
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return timeoutError(rc.Server, m.opt.ConnectTimeout, err)
	}
	if ctx.Err() != nil {
		return apperr.Wrap(ctx.Err(), apperr.Canceled, "connect %s", rc.Name)
	}
	select {
	case <-out.ended:
		return exitedError(rc.Name, p, out, answered)
	default:
	}
	return apperr.Wrap(err, apperr.MCPConnectFailed, "initialize %s", rc.Name).
		WithParam("server", rc.Name).WithParam("message", err.Error())
}

func timeoutError(s Server, def time.Duration, err error) *apperr.Error {
	secs := max(int(s.connectTimeout(def)/time.Second), 1)
	return apperr.Wrap(err, apperr.MCPConnectTimeout,
		"mcp server %s did not answer within its connect timeout (%d s; raise it in Settings → MCP or with cairn mcp edit --connect-timeout)", s.Name, secs).
		WithParam("server", s.Name).WithParam("seconds", secs)
}

// stdioTransport speaks newline-delimited JSON over the child's pipes; closing it stops
// the child's whole process group (go-sdk's CommandTransport signals the leader only,
// which leaves the real server running when it was started through npx).
type stdioTransport struct {
	p        *proc.Process
	grace    time.Duration
	log      *logring.Ring
	answered atomic.Bool // the server sent a message: it did start
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := newLineConn(t.p.Stdout(), t.p.Stdin(), func() error { return t.p.Stop(t.grace) }, func(line string) {
		t.log.Eventf("skipped a line on stdout that is not a JSON-RPC message: %s", line)
	})
	c.seen = &t.answered
	return c, nil
}

// --- HTTP ---

// httpTap adds the server's headers to every request and records the status of the
// initialize request, which go-sdk reports only inside an error string: the last POST
// while connecting. With anyMethod it records the first response of any method (SSE: the
// stream's GET).
type httpTap struct {
	base      http.RoundTripper
	headers   map[string]string
	anyMethod bool

	mu         sync.Mutex
	initStatus int
}

func (t *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if resp != nil && (t.anyMethod || req.Method == http.MethodPost) {
		t.mu.Lock()
		// SSE: the stream's GET decides. Streamable HTTP: the last POST, which is the
		// initialize when a server/discover probe went before it.
		if t.initStatus == 0 || !t.anyMethod {
			t.initStatus = resp.StatusCode
		}
		t.mu.Unlock()
	}
	return resp, err
}

func (t *httpTap) status() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.initStatus
}

// fallbackStatuses are the answers to a Streamable HTTP initialize that mean "this is an
// SSE server" (the 2024-11-05 transport has no POST on its SSE endpoint).
func fallbackStatus(code int) bool { return code == 400 || code == 404 || code == 405 }

// sessionContext returns a context for an HTTP session: go-sdk ties the SSE stream to the
// context given to Connect, so it must outlive the connect deadline. It is cancelled when
// ctx ends before done is called (the connect timed out), or by the returned cancel when
// the session closes.
func (m *Manager) sessionContext(ctx context.Context) (sctx context.Context, done func() bool, cancel context.CancelFunc) {
	sctx, cancel = context.WithCancel(m.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return sctx, stop, cancel
}

func (m *Manager) dialHTTP(ctx context.Context, s *server, client *mcp.Client, opts *mcp.ClientSessionOptions, rc resolved) (*conn, error) {
	if rc.Transport == TransportHTTP {
		tap := &httpTap{base: m.http, headers: rc.headers}
		hc := &http.Client{Transport: tap}
		t := &mcp.StreamableClientTransport{Endpoint: rc.url, HTTPClient: hc, OAuthHandler: m.oauthFor(rc.Server)}
		sctx, detach, cancel := m.sessionContext(ctx)
		cs, err := client.Connect(sctx, t, opts)
		if err == nil && detach() {
			s.log.Eventf("connected over Streamable HTTP to %s", rc.URL)
			return &conn{cs: cs, transport: TransportHTTP, extra: cancel}, nil
		}
		cancel()
		if err == nil {
			_ = cs.Close()
			err = ctx.Err()
		}
		st := tap.status()
		if !fallbackStatus(st) || ctx.Err() != nil {
			return nil, m.httpError(ctx, rc, st, err)
		}
		s.log.Eventf("Streamable HTTP initialize answered %d: falling back to SSE", st)
		c, err := m.dialSSE(ctx, s, client, opts, rc)
		if err != nil {
			return nil, err
		}
		c.fellBack = st
		return c, nil
	}
	return m.dialSSE(ctx, s, client, opts, rc)
}

func (m *Manager) dialSSE(ctx context.Context, s *server, client *mcp.Client, opts *mcp.ClientSessionOptions, rc resolved) (*conn, error) {
	tap := &httpTap{base: m.sseTransport(rc.Server), headers: rc.headers, anyMethod: true}
	t := &mcp.SSEClientTransport{Endpoint: rc.url, HTTPClient: &http.Client{Transport: tap}}
	sctx, detach, cancel := m.sessionContext(ctx)
	cs, err := client.Connect(sctx, t, opts)
	if err == nil && !detach() {
		_ = cs.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, m.httpError(ctx, rc, tap.status(), err)
	}
	s.log.Eventf("connected over SSE to %s", rc.URL)
	return &conn{cs: cs, transport: TransportSSE, extra: cancel}, nil
}

// httpError classifies a failed HTTP connect. A 401 from a server that takes OAuth
// tokens (no stored token works) is "needs sign-in"; other 401s and 403s are a refusal
// of the configured headers.
func (m *Manager) httpError(ctx context.Context, rc resolved, status int, err error) error {
	var re *oauth.RefreshError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return timeoutError(rc.Server, m.opt.ConnectTimeout, err)
	case ctx.Err() != nil:
		return apperr.Wrap(ctx.Err(), apperr.Canceled, "connect %s", rc.Name)
	case errors.Is(err, oauth.ErrSignInRequired),
		(status == http.StatusUnauthorized || status == http.StatusForbidden) && m.needsSignIn(rc.Server, err):
		return authRequired(rc.Server, err)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return apperr.Wrap(err, apperr.MCPAuthRejected, "mcp server %s", rc.Name).
			WithParam("server", rc.Name).WithParam("status", status)
	case errors.As(err, &re):
		return apperr.Wrap(err, apperr.MCPUnreachable, "mcp server %s", rc.Name).
			WithParam("server", rc.Name).WithParam("url", rc.URL).WithParam("message", re.Error())
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || status == 0 || status >= 500 {
		msg := err.Error()
		if status >= 500 {
			msg = fmt.Sprintf("HTTP %d", status)
		}
		return apperr.Wrap(err, apperr.MCPUnreachable, "mcp server %s", rc.Name).
			WithParam("server", rc.Name).WithParam("url", rc.URL).WithParam("message", msg)
	}
	return apperr.Wrap(err, apperr.MCPConnectFailed, "mcp server %s", rc.Name).
		WithParam("server", rc.Name).WithParam("message", fmt.Sprintf("HTTP %d: %v", status, err))
}

// --- built-in servers ---

// Builtin is an in-process MCP server Cairn ships, reached over go-sdk's in-memory
// transports (no process, no network).
type Builtin struct {
	ID   string
	Name string
	// New returns a fresh server for each connection.
	New func() *mcp.Server
}

func (m *Manager) dialBuiltin(ctx context.Context, s *server, client *mcp.Client, opts *mcp.ClientSessionOptions) (*conn, error) {
	m.mu.Lock()
	b, ok := m.builtins[s.id]
	m.mu.Unlock()
	if !ok || b.New == nil {
		return nil, apperr.New(apperr.MCPServerNotFound, "no built-in server %s", s.id).WithParam("server", s.id)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.New().Connect(ctx, st, nil)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.MCPConnectFailed, "built-in %s", b.Name).WithParam("server", b.Name).WithParam("message", err.Error())
	}
	cs, err := client.Connect(ctx, ct, opts)
	if err != nil {
		_ = ss.Close()
		return nil, apperr.Wrap(err, apperr.MCPConnectFailed, "built-in %s", b.Name).WithParam("server", b.Name).WithParam("message", err.Error())
	}
	return &conn{cs: cs, transport: TransportBuiltin, extra: func() { _ = ss.Close() }}, nil
}
