// Package server is the `cairn serve` transport: the same bound facade the Wails window
// uses, exposed as POST /api/<Method> (JSON array of arguments) plus one Server-Sent Events
// stream of the event bus, the built frontend, and a token, Host and Origin check in front
// of every request.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/redact"
)

// Defaults for the zero values of Config.
const (
	DefaultAddr         = "127.0.0.1:0"
	DefaultMaxBodyBytes = 8 << 20
	DefaultHeartbeat    = 15 * time.Second
	DefaultEventBuffer  = 256

	// shutdownOnCancel bounds the graceful shutdown started by the Start context ending.
	shutdownOnCancel = 5 * time.Second
)

// Config describes one server; zero values get the defaults above.
type Config struct {
	Addr         string        // listen address; default "127.0.0.1:0"
	Listener     net.Listener  // already listening (see Listen): Start serves on it; give Addr as it was asked for
	AllowRemote  bool          // a non-loopback Addr is refused (apperr remote_not_allowed) unless set
	Token        string        // the secret every request must carry; random 32-byte hex if empty
	Bound        any           // the facade (*main.App) or a PerCall of it: every exported method is callable
	Bus          *events.Bus   // streamed at GET /api/events; nil streams only hello and heartbeats
	Assets       fs.FS         // the built frontend, index.html at its root; nil or empty shows a "not built" page
	Logger       *slog.Logger  // nil discards
	MaxBodyBytes int64         // request body limit; default 8 MiB
	Heartbeat    time.Duration // SSE keep-alive comment interval; default 15 s
	EventBuffer  int           // events buffered per stream before the client is told to resync; default 256
	PageCalls    []string      // calls whose results index.html carries, e.g. `ListSessions[""]`; nil: GetSettings (see pageCalls)
	Redact       *redact.Set   // known secrets left out of every answer and error; nil leaves them
	DebugStats   bool          // serve GET /api/debug/stats (DebugStats), behind the token like every route; off by default
}

// PerCall is a facade whose every call through serve runs on a copy bound to that
// request's context, so a request the client gives up on (a closed tab) ends the wait it
// started. Bound gives the method table; For(ctx) returns a facade of the same type whose
// methods use ctx. The copy must not outlive the call: work that goes on after it
// returns uses a context of its own.
type PerCall struct {
	Bound any
	For   func(ctx context.Context) any
}

// Server serves one Config; build it with New, run it with Start or mount Handler.
type Server struct {
	cfg        Config
	log        *slog.Logger
	tokenSum   [sha256.Size]byte
	remoteHost string // the configured host, accepted in Host/Origin when AllowRemote
	methods    map[string]*method
	bound      reflect.Value                 // the receiver of a call without forCall
	forCall    func(ctx context.Context) any // PerCall.For; nil calls bound
	pageCalls  []pageCall                    // resolved once from cfg.PageCalls
	page       pageFiles                     // index.html and the locale files, read once
	locales    []string                      // the languages index.html can carry the strings of (page.go)
	handler    http.Handler

	streams atomic.Int64 // event streams open now: the windows served (EventStreams)

	done      chan struct{} // closed by Shutdown: ends every event stream
	closeOnce sync.Once

	mu       sync.Mutex
	srv      *http.Server
	base     context.Context // Start's: a call in flight ends when it is done
	stopped  chan struct{}   // closed when Serve returned
	serveErr error
}

// New validates cfg, fills defaults and builds the method table once.
func New(cfg Config) (*Server, error) {
	if cfg.Listener != nil && cfg.Addr == "" {
		cfg.Addr = cfg.Listener.Addr().String()
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.EventBuffer <= 0 {
		cfg.EventBuffer = DefaultEventBuffer
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	host, err := checkAddr(cfg.Addr, cfg.AllowRemote)
	if err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		if cfg.Token, err = NewToken(); err != nil {
			return nil, err
		}
	}
	bound, forCall := cfg.Bound, (func(context.Context) any)(nil)
	if pc, ok := cfg.Bound.(PerCall); ok {
		bound, forCall = pc.Bound, pc.For
		if got := reflect.TypeOf(forCall(context.Background())); got != reflect.TypeOf(bound) {
			return nil, apperr.New(apperr.Internal, "PerCall.For returns %s, not the facade's %s", got, reflect.TypeOf(bound))
		}
	}
	methods, skipped := buildMethods(bound)
	for _, sk := range skipped {
		log.Warn("serve: bound method not exposed over HTTP", "method", sk.name, "reason", sk.reason)
	}
	s := &Server{
		cfg:        cfg,
		log:        log,
		tokenSum:   sha256.Sum256([]byte(cfg.Token)),
		remoteHost: strings.ToLower(strings.Trim(host, "[]")),
		methods:    methods,
		bound:      reflect.ValueOf(bound),
		forCall:    forCall,
		locales:    localeNames(cfg.Assets),
		done:       make(chan struct{}),
	}
	s.pageCalls = s.resolvePageCalls()
	s.page = readPageFiles(cfg.Assets, s.locales)
	s.handler = http.HandlerFunc(s.serveHTTP)
	return s, nil
}

// checkAddr validates a listen address and returns its host: a non-loopback host needs
// allowRemote.
func checkAddr(addr string, allowRemote bool) (string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", apperr.Wrap(err, apperr.InvalidArgument, "listen address %q", addr).
			WithParam("message", "listen address "+strconv.Quote(addr)+": "+err.Error())
	}
	if !allowRemote && !isLoopbackHost(host) {
		return "", apperr.New(apperr.RemoteNotAllowed, "%s is not a loopback address", addr).
			WithParam("addr", addr)
	}
	return host, nil
}

// Listen checks addr as New does and listens on it, so that a caller can print the URL
// (URL) before the backend behind the server is open: a browser that connects meanwhile
// waits in the listen backlog until Start serves the listener (Config.Listener).
func Listen(ctx context.Context, addr string, allowRemote bool) (net.Listener, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	if _, err := checkAddr(addr, allowRemote); err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.ListenFailed, "listen on %s", addr).
			WithParam("addr", addr).WithParam("message", err.Error())
	}
	return ln, nil
}

// NewToken returns a fresh random token (32 bytes, hex), the secret of one server.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", apperr.Wrap(err, apperr.Internal, "generate token")
	}
	return hex.EncodeToString(b), nil
}

// Handler is the whole transport, for tests with httptest or embedding in another server.
// It must be served by net/http directly: the Host check compares against the local
// address of the connection (http.LocalAddrContextKey).
func (s *Server) Handler() http.Handler { return s.handler }

// LocalHandler serves the /api routes (calls and the event stream) without the token and
// Host checks, for a transport whose connections are already known to be the user's own:
// the owner's control socket, reachable only by this user (file mode and peer
// credentials). A request carrying an Origin came from a browser and is refused.
func (s *Server) LocalHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" || !isAPIPath(r.URL.Path) {
			writeJSONError(w, http.StatusForbidden, apperr.New(apperr.OriginRejected, "not a local API request"))
			return
		}
		s.route(w, r)
	})
}

// EventStreams is how many event streams are open now (browser tabs and terminal
// clients).
func (s *Server) EventStreams() int { return int(s.streams.Load()) }

// Token is the secret a client must present; it is part of the URL Start returns.
func (s *Server) Token() string { return s.cfg.Token }

// Start listens on cfg.Addr (or takes cfg.Listener) and serves in the background until
// Shutdown is called or ctx ends. It returns the address to open, token included:
// http://127.0.0.1:PORT/?token=TOKEN.
func (s *Server) Start(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return "", apperr.New(apperr.Internal, "server already started")
	}
	select {
	case <-s.done:
		return "", apperr.New(apperr.Internal, "server already shut down")
	default:
	}
	ln := s.cfg.Listener
	if ln == nil {
		var err error
		if ln, err = Listen(ctx, s.cfg.Addr, s.cfg.AllowRemote); err != nil {
			return "", err
		}
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No ReadTimeout/WriteTimeout: both would cut the event stream; event writes set
		// their own deadline instead.
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.srv, s.base = srv, ctx
	s.stopped = make(chan struct{})
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		if err != nil {
			s.log.Error("serve stopped", "err", err)
		}
		s.mu.Lock()
		s.serveErr = err
		s.mu.Unlock()
		close(s.stopped)
	}()
	stopped := s.stopped
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownOnCancel)
			defer cancel()
			if err := s.Shutdown(sctx); err != nil {
				s.log.Warn("serve: shutdown after cancel", "err", err)
			}
		case <-stopped:
		}
	}()
	return URL(ln.Addr(), s.cfg.Token), nil
}

// Wait blocks until the started server has stopped and returns why (nil after Shutdown).
func (s *Server) Wait() error {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped == nil {
		return apperr.New(apperr.Internal, "server not started")
	}
	<-stopped
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serveErr
}

// Shutdown ends every event stream, stops accepting requests and waits (bounded by ctx)
// for method calls in flight. It is safe to call more than once and without Start.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.done) })
	s.mu.Lock()
	srv, stopped := s.srv, s.stopped
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	if err := srv.Shutdown(ctx); err != nil {
		return apperr.Wrap(err, apperr.Internal, "shut down server")
	}
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return apperr.Wrap(ctx.Err(), apperr.Internal, "shut down server")
	}
}

// URL is what the user opens, token included: a loopback address when bound to every
// interface.
func URL(addr net.Addr, token string) string {
	host, port := "127.0.0.1", "0"
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
		if !ta.IP.IsUnspecified() {
			host = ta.IP.String()
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/?token=" + url.QueryEscape(token)
}

// isLoopbackHost accepts only names that cannot leave the machine: localhost and loopback IPs.
func isLoopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i]
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
