package owner

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

func claim(t *testing.T, dir string, wait time.Duration) *Owner {
	t.Helper()
	o, err := Claim(context.Background(), dir, KindServe, wait, nil)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// apiStub answers /api/Echo with its arguments and streams events from bus.
func apiStub(bus chan events.Event) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/Echo", func(w http.ResponseWriter, r *http.Request) {
		var args []any
		json.NewDecoder(r.Body).Decode(&args)
		json.NewEncoder(w).Encode(map[string]any{"result": args})
	})
	mux.HandleFunc("POST /api/Fail", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": apperr.New(apperr.SettingUnknown, "no such setting")})
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("retry: 2000\n\ndata: {\"type\":\"hello\"}\n\n"))
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-bus:
				b, _ := json.Marshal(ev)
				w.Write([]byte(": heartbeat\n\ndata: " + string(b) + "\n\n"))
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	return mux
}

// TestOneOwner: a second claim finds the first owner on its socket and gets its status;
// before the first one answers, the second waits and then says the directory is busy.
func TestOneOwner(t *testing.T) {
	dir := t.TempDir()
	o := claim(t, dir, 0)
	start := time.Now()
	_, err := Claim(context.Background(), dir, KindDesktop, 300*time.Millisecond, nil)
	if !apperr.Is(err, apperr.DataDirBusy) || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("claim while the owner is not answering yet: %v after %v", err, time.Since(start))
	}
	if ae := apperr.From(err); !strings.Contains(ae.Params["owner"].(string), "cairn serve (PID ") {
		t.Fatalf("busy error does not name the owner: %+v", ae.Params)
	}
	if err := o.Serve(Control{API: apiStub(nil), Windows: func() int { return 2 }}); err != nil {
		t.Fatal(err)
	}
	_, err = Claim(context.Background(), dir, KindDesktop, time.Minute, nil)
	var owned *OwnedError
	if !errors.As(err, &owned) {
		t.Fatalf("second claim: %v", err)
	}
	defer owned.Client.Close()
	if owned.Info.PID != os.Getpid() || owned.Info.Kind != KindServe || owned.Info.Windows != 2 {
		t.Fatalf("owner info %+v", owned.Info)
	}
	if st, err := os.Stat(SocketPath(dir)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", st.Mode(), err)
	}
}

// TestCommandsShareAndOwnerWaits: commands hold the lock shared, side by side; an owner
// waits for them and takes over once the last one is done.
func TestCommandsShareAndOwnerWaits(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var locks []*Lock
	for range 2 {
		c, l, err := Attach(ctx, dir, 0)
		if err != nil || c != nil || l == nil {
			t.Fatalf("attach without an owner: %v %v %v", c, l, err)
		}
		locks = append(locks, l)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		for _, l := range locks {
			l.Close()
		}
	}()
	waited := false
	start := time.Now()
	o, err := Claim(ctx, dir, KindServe, 10*time.Second, func() { waited = true })
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if !waited || time.Since(start) < 250*time.Millisecond {
		t.Fatalf("the owner did not wait for the commands (waited %v, %v)", waited, time.Since(start))
	}
	if _, _, err := Attach(ctx, dir, 200*time.Millisecond); !apperr.Is(err, apperr.DataDirBusy) {
		t.Fatalf("attach to an owner not answering yet: %v", err)
	}
}

// TestClientThroughTheSocket: calls come back with their result or the owner's apperr
// error; the event stream starts after hello and skips heartbeats.
func TestClientThroughTheSocket(t *testing.T) {
	dir := t.TempDir()
	o := claim(t, dir, 0)
	bus := make(chan events.Event, 4)
	if err := o.Serve(Control{API: apiStub(bus)}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, lock, err := Attach(ctx, dir, time.Second)
	if err != nil || c == nil || lock != nil {
		t.Fatalf("attach: %v %v %v", c, lock, err)
	}
	defer c.Close()
	var out []string
	if err := c.Call(ctx, "Echo", &out, "a", "b"); err != nil || strings.Join(out, ",") != "a,b" {
		t.Fatalf("echo: %v %v", out, err)
	}
	if err := c.Call(ctx, "Fail", nil); !apperr.Is(err, apperr.SettingUnknown) {
		t.Fatalf("fail: %v", err)
	}
	st, err := c.Events(ctx, 8)
	if err != nil {
		t.Fatal(err)
	}
	bus <- events.Event{Topic: "settings", Seq: 7, Type: "settings:changed", Data: json.RawMessage(`{"k":1}`)}
	select {
	case ev := <-st.C:
		if ev.Seq != 7 || ev.Type != "settings:changed" || string(ev.Data) != `{"k":1}` {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	st.Close()
	if err := c.Focus(ctx, nil); !apperr.Is(err, apperr.DataDirBusy) {
		t.Fatalf("focus of an owner without a window: %v", err)
	}
}

// TestStaleSocketOfADeadOwner: a socket file left behind (the owner was killed) is
// replaced by the next owner; a command meanwhile opens the directory itself.
func TestStaleSocketOfADeadOwner(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the file stays, nobody listens: what SIGKILL leaves
	if err := writeInfo(dir, Info{PID: 1 << 22, Kind: KindServe}); err != nil {
		t.Fatal(err)
	}
	c, l, err := Attach(context.Background(), dir, 0)
	if err != nil || c != nil || l == nil {
		t.Fatalf("attach beside a stale socket: %v %v %v", c, l, err)
	}
	l.Close()
	o := claim(t, dir, 0)
	if err := o.Serve(Control{API: apiStub(nil)}); err != nil {
		t.Fatalf("serve over a stale socket: %v", err)
	}
	in, ok := ReadInfo(dir)
	if !ok || in.PID != os.Getpid() {
		t.Fatalf("owner file %+v", in)
	}
	o.Close()
	if _, err := os.Stat(SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
	if _, ok := ReadInfo(dir); ok {
		t.Fatal("owner file left after Close")
	}
}

// TestLongDataDirGetsASocketElsewhere: a path too long for sun_path puts the socket in
// the temporary directory, under a name of its own.
func TestLongDataDirGetsASocketElsewhere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	p := SocketPath(dir)
	if len(p) > maxSocketPath || !strings.HasPrefix(p, os.TempDir()) || p == SocketPath(dir+"x") {
		t.Fatalf("socket path %q", p)
	}
	o := claim(t, dir, 0)
	if err := o.Serve(Control{API: apiStub(nil)}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := probe(context.Background(), dir); !ok {
		t.Fatal("no answer on the socket of a long data directory")
	}
}
