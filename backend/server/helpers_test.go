package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/server"
)

const testToken = "0123456789abcdef-test-token"

// point is a struct argument and result, to check JSON decoding into parameter types.
type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// fakeApp has a bound method of every shape the facade may use, and some it may not.
type fakeApp struct{}

func (*fakeApp) Ping()                                {}
func (*fakeApp) Echo(s string) string                 { return s }
func (*fakeApp) Add(a, b int) (int, error)            { return a + b, nil }
func (*fakeApp) Move(p point, dx int) (point, error)  { return point{X: p.X + dx, Y: p.Y}, nil }
func (*fakeApp) Sum(base int, xs ...int) int          { return base + sumInts(xs) }
func (*fakeApp) Any(v any) any                        { return v }
func (*fakeApp) Names() []string                      { return []string{"a", "b"} }
func (*fakeApp) Pointer(p *point) *point              { return p }
func (*fakeApp) FailPlain() (string, error)           { return "", errors.New("disk on fire") }
func (*fakeApp) FailTyped(fail bool) *apperr.Error    { return failTyped(fail) }
func (*fakeApp) Boom() string                         { panic("kaboom") }
func (*fakeApp) WithContext(context.Context) error    { return nil }    // not callable over JSON
func (*fakeApp) Pair() (int, string)                  { return 1, "x" } // results not allowed
func (*fakeApp) Callback(func()) error                { return nil }    // parameter not JSON
func (*fakeApp) Stream() chan int                     { return nil }    // result not JSON
func (*fakeApp) Check(ok bool) error                  { return check(ok) }
func (*fakeApp) Fail(code string, param string) error { return failWith(code, param) }
func (*fakeApp) helper() int                          { return 1 } // unexported: never bound

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func failTyped(fail bool) *apperr.Error {
	if fail {
		return apperr.New(apperr.SessionBusy, "busy")
	}
	return nil
}

func check(ok bool) error {
	if ok {
		return nil
	}
	return apperr.New(apperr.InvalidArgument, "not ok").WithParam("message", "not ok")
}

func failWith(code, param string) error {
	e := apperr.New(apperr.Code(code), "failed with %s", code)
	if param != "" {
		e = e.WithParam("name", param)
	}
	return e
}

// testAssets is a small built frontend in the shape Vite leaves it.
func testAssets() fstest.MapFS {
	return fstest.MapFS{
		"index.html":            {Data: []byte("<!doctype html><title>Cairn</title><div id=root></div>")},
		"assets/index-abc1.js":  {Data: []byte("console.log('cairn')")},
		"assets/index-abc1.css": {Data: []byte("body{margin:0}")},
		"favicon.svg":           {Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")},
	}
}

// testServer is one Server behind a real httptest listener.
type testServer struct {
	srv *server.Server
	ts  *httptest.Server
	bus *events.Bus
}

func newTestServer(t *testing.T, mutate func(*server.Config)) *testServer {
	t.Helper()
	bus := events.NewBus()
	cfg := server.Config{Token: testToken, Bound: &fakeApp{}, Bus: bus, Assets: testAssets()}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(func() { shutdown(t, srv) })
	return &testServer{srv: srv, ts: ts, bus: bus}
}

func shutdown(t *testing.T, srv *server.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// noRedirect lets tests see a redirect instead of following it.
func noRedirect() *http.Client {
	return &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       20 * time.Second,
	}
}

type reqOpt func(*http.Request)

func bearer(tok string) reqOpt {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

// cookie sends the token the way an older Cairn kept it: a cookie, which every server on
// the host receives, so it must never authorize anything.
func cookie(tok string) reqOpt {
	return func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "cairn_token", Value: tok}) }
}
func header(k, v string) reqOpt { return func(r *http.Request) { r.Header.Set(k, v) } }
func host(h string) reqOpt      { return func(r *http.Request) { r.Host = h } }

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (ts *testServer) do(t *testing.T, method, path string, body io.Reader, opts ...reqOpt) reply {
	t.Helper()
	req, err := http.NewRequest(method, ts.ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		o(req)
	}
	resp, err := noRedirect().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// call POSTs a bound method with the test token.
func (ts *testServer) call(t *testing.T, name, body string, opts ...reqOpt) reply {
	t.Helper()
	return ts.do(t, http.MethodPost, "/api/"+name, strings.NewReader(body),
		append([]reqOpt{bearer(testToken), header("Content-Type", "application/json")}, opts...)...)
}

// errBody is the JSON shape of every error answer.
type errBody struct {
	Error *struct {
		Code    string         `json:"code"`
		I18nKey string         `json:"i18nKey"`
		Params  map[string]any `json:"params"`
		Message string         `json:"message"`
		Action  *apperr.Action `json:"action"`
	} `json:"error"`
}

func decodeErr(t *testing.T, r reply) errBody {
	t.Helper()
	var e errBody
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == nil {
		t.Fatalf("not an error body (status %d): %q (%v)", r.status, r.body, err)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("error content type %q", r.header.Get("Content-Type"))
	}
	return e
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("bad JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return bytes.Equal(gb, wb)
}

// sseStream reads one /api/events response frame by frame.
type sseStream struct {
	t      *testing.T
	resp   *http.Response
	br     *bufio.Reader
	cancel context.CancelFunc
}

// openEvents connects to /api/events with the token; client nil uses a plain client.
func openEvents(t *testing.T, baseURL string, client *http.Client) *sseStream {
	t.Helper()
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/api/events", nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open events: %v", err)
	}
	s := &sseStream{t: t, resp: resp, br: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(s.close)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events content type %q", ct)
	}
	return s
}

func (s *sseStream) close() {
	s.cancel()
	_ = s.resp.Body.Close()
}

// frame is one SSE block: an event, or a comment such as the heartbeat.
type frame struct {
	event   *events.Event
	comment string
}

// nextFrame reads up to the next event or comment; the stream is cut (failing the test)
// if nothing arrives in time, so a missing event cannot hang the run.
func (s *sseStream) nextFrame() (frame, error) {
	s.t.Helper()
	guard := time.AfterFunc(15*time.Second, s.cancel)
	defer guard.Stop()
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			return frame{}, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "data: "):
			var ev events.Event
			if err := json.Unmarshal([]byte(line[len("data: "):]), &ev); err != nil {
				s.t.Fatalf("bad event %q: %v", line, err)
			}
			if blank, _ := s.br.ReadString('\n'); blank != "\n" {
				s.t.Fatalf("event not terminated by a blank line: %q", blank)
			}
			return frame{event: &ev}, nil
		case strings.HasPrefix(line, ":"):
			return frame{comment: strings.TrimSpace(line[1:])}, nil
		}
		// "retry:" and blank lines carry no event.
	}
}

// next returns the next event, skipping heartbeats.
func (s *sseStream) next() events.Event {
	s.t.Helper()
	for {
		f, err := s.nextFrame()
		if err != nil {
			s.t.Fatalf("event stream ended: %v", err)
		}
		if f.event != nil {
			return *f.event
		}
	}
}

// assertCode checks that err is an apperr of the code, with its params when it has some.
func assertCode(t *testing.T, err error, code string) {
	t.Helper()
	ae := apperr.From(err)
	if string(ae.Code) != code {
		t.Fatalf("code %s, want %s (%v)", ae.Code, code, err)
	}
}
