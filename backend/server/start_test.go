package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/server"
)

func startServer(t *testing.T, ctx context.Context, cfg server.Config) (*server.Server, string) {
	t.Helper()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, err := srv.Start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { shutdown(t, srv) })
	return srv, u
}

func TestStartReturnsAWorkingURL(t *testing.T) {
	srv, u := startServer(t, context.Background(), server.Config{
		Bound: &fakeApp{}, Bus: events.NewBus(), Assets: testAssets(),
	})
	m := regexp.MustCompile(`^http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})$`).FindStringSubmatch(u)
	if m == nil {
		t.Fatalf("URL %q", u)
	}
	if m[1] == "0" || m[2] != srv.Token() {
		t.Fatalf("URL %q: port %s, token %s vs %s", u, m[1], m[2], srv.Token())
	}

	// What a browser does with it: the page (with its data, no cookie), then API calls with
	// the token as a header.
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "id=root") || len(resp.Cookies()) != 0 {
		t.Fatalf("open URL: %d, cookies %v: %s", resp.StatusCode, resp.Cookies(), body)
	}
	base := strings.TrimSuffix(strings.SplitN(u, "?", 2)[0], "/")
	req, _ := http.NewRequest(http.MethodPost, base+"/api/Add", strings.NewReader("[20, 22]"))
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !jsonEqual(t, body, `{"result":42}`) {
		t.Fatalf("call: %d %s", resp.StatusCode, body)
	}
	// Without the header the call is refused.
	resp, err = http.Get(base + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("health without token: %d", resp.StatusCode)
	}

	if _, err := srv.Start(context.Background()); err == nil {
		t.Fatal("second Start succeeded")
	}
	shutdown(t, srv)
	if err := srv.Wait(); err != nil {
		t.Fatalf("Wait after Shutdown: %v", err)
	}
	if _, err := http.Get(base + "/api/health"); err == nil {
		t.Fatal("server still answers after Shutdown")
	}
}

func TestShutdownClosesEventStreams(t *testing.T) {
	srv, u := startServer(t, context.Background(), server.Config{Token: testToken, Bus: events.NewBus()})
	base := strings.TrimSuffix(strings.SplitN(u, "?", 2)[0], "/")
	streams := []*sseStream{openEvents(t, base, nil), openEvents(t, base, nil)}
	for _, s := range streams {
		assertHello(t, s.next())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with open streams: %v", err)
	}
	for i, s := range streams {
		for {
			_, err := s.nextFrame()
			if err == nil {
				continue
			}
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream %d ended with %v, want EOF", i, err)
			}
			break
		}
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestStartContextCancelStopsTheServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, _ := startServer(t, ctx, server.Config{Token: testToken})
	cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server still running after its context ended")
	}
}

func TestStartReportsABusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv, err := server.New(server.Config{Addr: ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.Start(context.Background())
	if err == nil {
		t.Fatal("Start on a busy address succeeded")
	}
	assertCode(t, err, "listen_failed")
	if err := srv.Wait(); err == nil {
		t.Fatal("Wait on a server that never started returned nil")
	}
}

func TestShutdownWithoutStart(t *testing.T) {
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	shutdown(t, srv)
	shutdown(t, srv) // twice is fine
	if _, err := srv.Start(context.Background()); err == nil {
		t.Fatal("Start after Shutdown succeeded")
	}
}

// TestListenFirstServeLater: a request that reaches a listener from Listen before the
// server takes it waits in the backlog and is answered once Start serves it.
func TestListenFirstServeLater(t *testing.T) {
	ln, err := server.Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	token, err := server.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	u := server.URL(ln.Addr(), token)
	if !strings.HasSuffix(u, "/?token="+token) || !strings.HasPrefix(u, "http://"+ln.Addr().String()+"/") {
		t.Fatalf("URL %q for %s", u, ln.Addr())
	}
	type answer struct {
		status int
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/health", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		resp.Body.Close()
		got <- answer{status: resp.StatusCode}
	}()
	select {
	case a := <-got:
		t.Fatalf("answered before the server was started: %+v", a)
	case <-time.After(200 * time.Millisecond):
	}
	srv, err := server.New(server.Config{Listener: ln, Token: token, Bound: &fakeApp{}})
	if err != nil {
		t.Fatal(err)
	}
	if su, err := srv.Start(context.Background()); err != nil || su != u {
		t.Fatalf("Start = %q, %v; want %q", su, err, u)
	}
	t.Cleanup(func() { shutdown(t, srv) })
	if a := <-got; a.err != nil || a.status != http.StatusOK {
		t.Fatalf("health: %+v", a)
	}
}

// TestListenerKeepsTheAskedForHost: with a listener from Listen and AllowRemote, the host
// the user asked for (a name) is what Host and Origin may carry, not the listener's IP.
func TestListenerKeepsTheAskedForHost(t *testing.T) {
	ln, err := server.Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	srv, err := server.New(server.Config{Addr: "cairn.example:" + port, Listener: ln, AllowRemote: true, Bound: &fakeApp{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(t, srv) })
	for _, tt := range []struct {
		host string
		want int
	}{
		{"cairn.example:" + port, http.StatusOK},
		{"other.example:" + port, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/health", nil)
		req.Host = tt.host
		req.Header.Set("Authorization", "Bearer "+srv.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Fatalf("Host %s: %d, want %d", tt.host, resp.StatusCode, tt.want)
		}
	}
}
