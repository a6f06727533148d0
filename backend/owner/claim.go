package owner

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

// OwnedError is Claim's answer when another owner runs: its status and a client of it.
type OwnedError struct {
	Info   Info
	Client *Client
}

func (e *OwnedError) Error() string { return "the data directory is owned by " + e.Info.Describe() }

// Owner is this process as the owner of a data directory.
type Owner struct {
	dir  string
	sock string
	info Info
	lock *Lock

	mu   sync.Mutex
	srv  *http.Server
	done bool
}

// Claim makes this process the owner of dir. While commands hold the directory (or
// another owner is still starting) it tries again until wait has passed, calling waiting
// once when it starts to wait; an owner that answers on the control socket ends it at
// once with *OwnedError.
func Claim(ctx context.Context, dir, kind string, wait time.Duration, waiting func()) (*Owner, error) {
	deadline := time.Now().Add(wait)
	told := false
	for {
		l, err := tryLock(dir, true)
		if err == nil {
			info := selfInfo(kind)
			if err := writeInfo(dir, info); err != nil {
				l.Close()
				return nil, apperr.Wrap(err, apperr.DataDirFailed, "write the owner file").WithParam("path", dir)
			}
			return &Owner{dir: dir, sock: SocketPath(dir), info: info, lock: l}, nil
		}
		if !errors.Is(err, errBusy) {
			return nil, err
		}
		if c, in, ok := probe(ctx, dir); ok {
			return nil, &OwnedError{Info: in, Client: c}
		}
		if time.Now().After(deadline) {
			return nil, busy(dir, liveOwner(dir))
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return nil, err
		}
	}
}

// Attach finds the way a command reaches dir: a Client when an owner answers, else a
// shared Lock the command holds for its run (nil, lock). An owner that holds the lock but
// does not answer yet (it is opening the database) is waited for up to wait.
func Attach(ctx context.Context, dir string, wait time.Duration) (*Client, *Lock, error) {
	deadline := time.Now().Add(wait)
	for {
		l, err := tryLock(dir, false)
		if err == nil {
			return nil, l, nil
		}
		if !errors.Is(err, errBusy) {
			return nil, nil, err
		}
		if c, _, ok := probe(ctx, dir); ok {
			return c, nil, nil
		}
		if time.Now().After(deadline) {
			return nil, nil, busy(dir, liveOwner(dir))
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return nil, nil, err
		}
	}
}

// probe asks the socket of dir for its owner's status.
func probe(ctx context.Context, dir string) (*Client, Info, bool) {
	c := NewClient(SocketPath(dir))
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	in, err := c.Status(pctx)
	if err != nil {
		return nil, Info{}, false
	}
	return c, in, true
}

// liveOwner is the owner the owner file names when that process still runs.
func liveOwner(dir string) *Info {
	in, ok := ReadInfo(dir)
	if !ok || !(pidcheck.Owner{PID: in.PID, Start: in.Start}).Alive() {
		return nil
	}
	return &in
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return apperr.Wrap(ctx.Err(), apperr.Canceled, "waiting for the data directory")
	case <-t.C:
		return nil
	}
}

// Info is this owner's description.
func (o *Owner) Info() Info { return o.info }

// Dir is the data directory owned.
func (o *Owner) Dir() string { return o.dir }

// Control is what the owner answers on its socket.
type Control struct {
	// API serves /api/*: the facade's calls and event stream (server.Server.LocalHandler).
	API http.Handler
	// Calls serves the calls only commands make (Client.CallOwner), as /api/* under
	// /control; nil has none.
	Calls http.Handler
	// Windows and Clients count what is open now; nil counts none.
	Windows func() int
	Clients func() int
	// Browser serves the browser UI from this backend on addr until ctx ends and returns
	// its address (token included); nil when this owner cannot.
	Browser func(ctx context.Context, addr string) (string, error)
	// Focus brings the owner's window forward for a second launch of the desktop app,
	// with that launch's arguments; nil when the owner has no window.
	Focus func(args []string)
	// Routes are more control routes ("POST /control/run": handler), reached with
	// Client.Post.
	Routes map[string]http.Handler
	Log    *slog.Logger
}

// Serve listens on the control socket until Close. A socket file already there is a dead
// owner's: this process holds the lock, so nobody else can be listening on it.
func (o *Owner) Serve(c Control) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || o.srv != nil {
		return apperr.New(apperr.Internal, "control socket already served or closed")
	}
	if err := os.Remove(o.sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return apperr.Wrap(err, apperr.DataDirFailed, "remove the stale control socket").WithParam("path", o.sock)
	}
	ln, err := net.Listen("unix", o.sock)
	if err != nil {
		return apperr.Wrap(err, apperr.DataDirFailed, "listen on the control socket").WithParam("path", o.sock)
	}
	// Windows keeps the socket to the user by the directory's ACL and has no mode to set.
	if err := os.Chmod(o.sock, 0o600); err != nil && runtime.GOOS != "windows" {
		ln.Close()
		return apperr.Wrap(err, apperr.DataDirFailed, "protect the control socket").WithParam("path", o.sock)
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o.srv = &http.Server{
		Handler:           o.mux(c),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	srv := o.srv
	go func() {
		if err := srv.Serve(&peerListener{Listener: ln, log: log}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("control socket stopped", "err", err)
		}
	}()
	return nil
}

// StopServing closes the control socket (commands then find no owner answering and wait
// for the lock) while the lock is still held: call it before the services close, so no
// command reaches a backend that is closing.
func (o *Owner) StopServing() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv != nil {
		o.srv.Close()
		os.Remove(o.sock)
		o.srv = nil
	}
}

// Close stops answering, removes the socket and the owner file, and releases the lock.
func (o *Owner) Close() error {
	o.StopServing()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return nil
	}
	o.done = true
	os.Remove(filepath.Join(o.dir, infoName))
	return o.lock.Close()
}

// peerListener accepts only connections from this user's processes.
type peerListener struct {
	net.Listener
	log *slog.Logger
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if !ownedByMe(c) {
			l.log.Warn("control socket: refused a connection from another user")
			c.Close()
			continue
		}
		return c, nil
	}
}

func (o *Owner) mux(c Control) http.Handler {
	count := func(f func() int) int {
		if f == nil {
			return 0
		}
		return f()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /control/status", func(w http.ResponseWriter, r *http.Request) {
		in := o.info
		in.Windows, in.Clients = count(c.Windows), count(c.Clients)
		writeJSON(w, http.StatusOK, in)
	})
	mux.HandleFunc("POST /control/browser", func(w http.ResponseWriter, r *http.Request) {
		o.serveBrowser(w, r, c.Browser)
	})
	mux.HandleFunc("POST /control/focus", func(w http.ResponseWriter, r *http.Request) {
		var args []string
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&args); err != nil {
			writeJSON(w, http.StatusBadRequest, errBody(apperr.New(apperr.BadRequestBody, "focus: %v", err)))
			return
		}
		if c.Focus == nil {
			writeJSON(w, http.StatusConflict, errBody(busy(o.dir, &o.info)))
			return
		}
		c.Focus(args)
		writeJSON(w, http.StatusOK, struct{}{})
	})
	if c.API != nil {
		mux.Handle("/api/", c.API)
	}
	for pattern, h := range c.Routes {
		mux.Handle(pattern, h)
	}
	if c.Calls != nil {
		mux.Handle("/control/api/", http.StripPrefix("/control", c.Calls))
	}
	return mux
}

// serveBrowser starts the browser UI for the asking `cairn serve` and keeps it while that
// process stays connected: the answer is one JSON line with the address, then nothing
// until either side goes.
func (o *Owner) serveBrowser(w http.ResponseWriter, r *http.Request, start func(context.Context, string) (string, error)) {
	if start == nil {
		writeJSON(w, http.StatusConflict, errBody(apperr.New(apperr.DataDirBusy, "%s cannot serve a browser", o.info.Describe()).
			WithParam("path", o.dir).WithParam("owner", o.info.Describe())))
		return
	}
	addr := r.URL.Query().Get("addr")
	url, err := start(r.Context(), addr)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errBody(apperr.From(err)))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": url})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	<-r.Context().Done()
}

func errBody(e *apperr.Error) any {
	return struct {
		Error *apperr.Error `json:"error"`
	}{e}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = jsonEncode(w, v)
}
