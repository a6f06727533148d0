package mcp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/mcp/oauth"
)

// server is the runtime of one configured server: its config, its live connection (at
// most one), its state and its log.
type server struct {
	m    *Manager
	id   string
	log  *logring.Ring
	live *liveLog // what of the log the windows see live

	mu          sync.Mutex
	cfg         Server
	state       State
	err         *apperr.Error
	since       time.Time
	conn        *conn
	connectedAt time.Time
	connecting  *connectOp
	gen         uint64 // bumped by every stop: a connect or a crash of an older generation is ignored
	restarts    int    // consecutive failures; the backoff grows with it
	lastReason  string // the stderr reason of the last failed start ("" after a success)
	retry       *time.Timer
	retryAt     time.Time
	signIns     uint64 // completed sign-ins: a connect that began before one is not final
	// probeTimedOut: a connect that offered server/discover ran out of time. Some
	// servers never answer a method they do not know; later connects of this process
	// skip the probe.
	probeTimedOut bool
	// recorded: state and err come from mcp_server_status (an earlier process); nothing
	// has been tried in this one yet. saved is what that table holds now.
	recorded bool
	saved    string

	dead         bool // deleted, or the manager closed: never connect again
	refreshing   bool
	refreshAgain bool
	warmAsked    bool // ListTools found no cache and asked for one refresh
}

type connectOp struct {
	done    chan struct{}
	cancel  context.CancelFunc
	conn    *conn
	err     error
	signIns uint64 // server.signIns when the connect began
}

func (m *Manager) newServer(cfg Server) *server {
	s := &server{m: m, id: cfg.ID, cfg: cfg, state: StateIdle, since: time.Now()}
	if !cfg.Enabled {
		s.state = StateDisabled
	}
	s.live = newLiveLog(func(l logring.Line) { m.publish(TypeLog, LogEvent{ServerID: cfg.ID, Line: l}) })
	s.log = logring.New(m.opt.LogLines, m.logPath(cfg.ID), s.live.add)
	if m.redact != nil {
		s.log.SetFilter(m.redact)
	}
	return s
}

// LogEvent is one new log line of a server, broadcast on topic mcp (at most liveLogBurst
// a second per server; see liveLog).
type LogEvent struct {
	ServerID string       `json:"serverId"`
	Line     logring.Line `json:"line"`
}

func (s *server) config() Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.clone()
}

// setStateLocked records a state change; the caller publishes after unlocking.
func (s *server) setStateLocked(st State, err *apperr.Error) {
	s.state, s.err, s.since, s.recorded = st, err, time.Now(), false
}

// restoreLocked shows the state an earlier process recorded, until this one tries.
func (s *server) restoreLocked(st savedStatus) {
	s.state, s.err, s.since, s.recorded = st.State, st.Err, time.UnixMilli(st.At), true
	s.saved = savedKey(st.State, st.Err)
}

// savedKey tells recorded states apart, so an unchanged one is not written again.
func savedKey(st State, err *apperr.Error) string {
	if !recordedState(st) {
		return ""
	}
	if err == nil {
		return string(st)
	}
	return string(st) + "\x00" + string(err.Code) + "\x00" + err.Message
}

// recordStatus writes the server's state to mcp_server_status when it changed (a failure
// recorded, or a recorded failure cleared), so the next process lists it without
// connecting. The starting state in between is not recorded.
func (m *Manager) recordStatus(s *server) {
	s.mu.Lock()
	key := savedKey(s.state, s.err)
	st := savedStatus{State: s.state, Err: s.err, At: s.since.UnixMilli()}
	if s.state == StateStarting || s.recorded || key == s.saved || s.dead {
		s.mu.Unlock()
		return
	}
	s.saved = key
	s.mu.Unlock()
	// Not cut short by Close: the last failure is what the next process should show.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(m.ctx), 5*time.Second)
	defer cancel()
	if err := m.db.putStatus(ctx, s.id, st); err != nil {
		m.log.Warn("mcp: cannot record a server's status", "server", s.id, "err", err)
	}
}

// session returns the live connection, connecting first when there is none. Concurrent
// callers share one connect; a caller whose ctx ends stops waiting, the connect goes on
// for the others (bounded by the server's connect timeout).
func (s *server) session(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return nil, notFound(s.id)
	}
	if !s.cfg.Enabled {
		name := s.cfg.Name
		s.mu.Unlock()
		return nil, apperr.New(apperr.MCPServerDisabled, "mcp server %s is disabled", name).WithParam("server", name)
	}
	if s.conn != nil {
		c := s.conn
		s.mu.Unlock()
		return c, nil
	}
	op := s.connecting
	if op == nil {
		cctx, cancel := context.WithTimeout(s.m.ctx, s.cfg.connectTimeout(s.m.opt.ConnectTimeout))
		op = &connectOp{done: make(chan struct{}), cancel: cancel, signIns: s.signIns}
		s.connecting = op
		gen := s.gen
		cfg := s.cfg.clone()
		s.setStateLocked(StateStarting, nil)
		s.mu.Unlock() // lock order is Manager.mu before server.mu: never hold s.mu here
		if !s.m.goBackground(func() { s.doConnect(cctx, op, gen, cfg) }) {
			s.mu.Lock()
			if s.connecting == op {
				s.connecting = nil
			}
			s.mu.Unlock()
			cancel()
			op.err = apperr.New(apperr.Canceled, "mcp: shutting down")
			close(op.done)
			return nil, op.err
		}
		s.m.publishServer(s.id)
	} else {
		s.mu.Unlock()
	}
	select {
	case <-op.done:
		return op.conn, op.err
	case <-ctx.Done():
		return nil, apperr.Wrap(ctx.Err(), apperr.Canceled, "connect %s", s.id)
	}
}

func (s *server) doConnect(ctx context.Context, op *connectOp, gen uint64, cfg Server) {
	defer op.cancel()
	var c *conn
	rc, err := s.m.resolve(cfg)
	if err == nil {
		c, err = s.m.dial(ctx, s, rc)
	}
	s.mu.Lock()
	if s.connecting == op {
		s.connecting = nil
	}
	if gen != s.gen {
		s.mu.Unlock()
		if c != nil {
			c.close()
		}
		op.err = apperr.Wrap(errStale, apperr.Canceled, "connect %s", cfg.Name)
		close(op.done)
		return
	}
	if err != nil {
		ae := errOf(err)
		again := false
		if ae.Code == apperr.MCPAuthRequired {
			// Retrying is pointless until the user signs in; the sign-in reconnects. A
			// sign-in that completed while this connect ran makes it worth another go.
			again = op.signIns != s.signIns
			if again {
				s.setStateLocked(StateIdle, nil)
			} else {
				s.setStateLocked(StateNeedsSignIn, ae)
				s.log.Eventf("the server needs a sign-in")
			}
		} else if s.failedForGoodLocked(err, ae) {
			s.setStateLocked(StateFailed, ae)
			s.log.Eventf("connect failed: %s", ae.Message)
			s.log.Eventf("not restarting on a timer: it would fail the same way; fix the cause, then restart it")
		} else {
			s.setStateLocked(StateError, ae)
			s.log.Eventf("connect failed: %s", ae.Message)
			s.scheduleRetryLocked()
		}
		s.mu.Unlock()
		s.m.recordStatus(s) // before the caller hears of it: a CLI run may close right after
		op.err = ae
		close(op.done)
		s.m.publishServer(s.id)
		if again {
			s.m.requestRefresh(s.id)
		}
		return
	}
	s.conn = c
	s.connectedAt = time.Now()
	s.lastReason = ""
	s.setStateLocked(StateReady, nil)
	s.mu.Unlock()
	s.m.recordStatus(s)
	op.conn = c
	close(op.done)
	s.m.goBackground(func() {
		_ = c.cs.Wait()
		s.lost(c, gen)
	})
	s.m.publishServer(s.id)
}

// lost handles a connection that ended without Cairn closing it: a crashed process, a
// dropped HTTP session. The group is killed (nothing of a crashed server survives) and a
// restart is scheduled with backoff.
func (s *server) lost(c *conn, gen uint64) {
	s.mu.Lock()
	if gen != s.gen || s.conn != c {
		s.mu.Unlock()
		return
	}
	s.conn = nil
	s.mu.Unlock()

	var ae *apperr.Error
	if c.proc != nil {
		select {
		case <-c.stderr.ended:
		case <-time.After(2 * time.Second):
		}
		c.proc.KillGroup()
		ae = exitedError(s.config().Name, c.proc, c.stderr, true).err
	} else {
		name := s.config().Name
		ae = apperr.New(apperr.MCPUnreachable, "connection to %s closed", name).
			WithParam("server", name).WithParam("url", s.config().URL).WithParam("message", "the connection closed")
	}
	c.close()

	s.mu.Lock()
	if gen != s.gen {
		s.mu.Unlock()
		return
	}
	if time.Since(s.connectedAt) >= s.m.opt.StableAfter {
		s.restarts = 0
	}
	s.setStateLocked(StateError, ae)
	s.log.Eventf("connection lost: %s", ae.Message)
	s.scheduleRetryLocked()
	s.mu.Unlock()
	s.m.publishServer(s.id)
}

// failedForGoodLocked says whether a failed start would only fail the same way if it were
// retried on a timer: a missing command or an invalid config, a process that exited with
// a non-zero status before it answered anything, or the same stderr reason twice in a row.
// Such a server is shown failed and waits for the user (Restart, a changed config).
func (s *server) failedForGoodLocked(err error, ae *apperr.Error) bool {
	switch ae.Code {
	case apperr.MCPCommandNotFound, apperr.MCPServerInvalid, apperr.MCPSandboxUnavailable, apperr.MCPSandboxNetwork:
		return true
	}
	var sf *startFailure
	if !errors.As(err, &sf) {
		s.lastReason = ""
		return false
	}
	again := sf.reason != "" && sf.reason == s.lastReason
	s.lastReason = sf.reason
	return sf.deterministic() || again
}

// scheduleRetryLocked arms the restart timer with exponential backoff, unless the server
// failed too often in a row (then it waits for the user).
func (s *server) scheduleRetryLocked() {
	if !s.cfg.Enabled || s.retry != nil {
		return
	}
	if s.restarts >= s.m.opt.MaxRestarts {
		s.log.Eventf("giving up after %d attempts in a row; restart it from Settings", s.restarts)
		return
	}
	d := s.m.opt.RestartMin << s.restarts
	if d <= 0 || d > s.m.opt.RestartMax {
		d = s.m.opt.RestartMax
	}
	s.restarts++
	gen := s.gen
	s.retryAt = time.Now().Add(d)
	s.log.Eventf("restarting in %s (attempt %d of %d)", d.Round(time.Millisecond), s.restarts, s.m.opt.MaxRestarts)
	s.retry = time.AfterFunc(d, func() {
		s.mu.Lock()
		s.retry = nil
		ok := gen == s.gen && s.cfg.Enabled
		s.mu.Unlock()
		if ok {
			s.m.requestRefresh(s.id)
		}
	})
}

// retire stops the server for good (deleted, or the manager closes).
func (s *server) retire() {
	s.mu.Lock()
	s.dead = true
	s.mu.Unlock()
	s.stop(StateDisabled, nil)
}

// stop closes the connection (and process group), cancels a connect in flight and any
// pending restart, and puts the server in state st.
func (s *server) stop(st State, err *apperr.Error) {
	s.mu.Lock()
	s.gen++
	if s.retry != nil {
		s.retry.Stop()
		s.retry = nil
	}
	c := s.conn
	s.conn = nil
	if op := s.connecting; op != nil {
		op.cancel()
		s.connecting = nil
	}
	s.setStateLocked(st, err)
	s.mu.Unlock()
	if c != nil {
		s.log.Eventf("stopping")
		c.close()
	}
}

// status is the runtime half of a ServerView.
func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{State: s.state, Error: s.err, Since: s.since.UnixMilli(), Restarts: s.restarts, Recorded: s.recorded}
	if s.err != nil {
		st.Reason = s.err.Message
	}
	if s.conn != nil {
		st.Transport = s.conn.transport
		st.FallbackStatus = s.conn.fellBack
		info := s.conn.info
		st.ServerInfo = &info
		if s.conn.proc != nil {
			st.Pid = s.conn.proc.Pid()
		}
	}
	if s.retry != nil {
		st.RetryAt = s.retryAt.UnixMilli()
	}
	return st
}

// Status is the runtime state of a server.
type Status struct {
	State State         `json:"state"`
	Error *apperr.Error `json:"error,omitempty"`
	// Reason is the technical text of Error, for logs and the CLI.
	Reason string `json:"reason,omitempty"`
	Since  int64  `json:"since"` // unix ms of the last change
	// Transport is what is spoken now (sse after a fallback); FallbackStatus is the HTTP
	// status of the Streamable HTTP initialize that caused the fallback.
	Transport      Transport   `json:"transport,omitempty"`
	FallbackStatus int         `json:"fallbackStatus,omitempty"`
	ServerInfo     *ServerInfo `json:"serverInfo,omitempty"`
	Pid            int         `json:"pid,omitempty"`
	Restarts       int         `json:"restarts,omitempty"`
	RetryAt        int64       `json:"retryAt,omitempty"` // unix ms of the next automatic restart
	// Recorded: State and Error are what an earlier Cairn saw last (a failure, kept in
	// the database); this process has not tried the server yet.
	Recorded bool `json:"recorded,omitempty"`
	// OAuth is the sign-in of a remote server: signed in (expiry, scopes) or waiting for
	// the browser (authUrl); nil when there is neither.
	OAuth *oauth.Status `json:"oauth,omitempty"`
}
