package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/oauth/oauthtest"
)

// memStore is an in-memory Store.
type memStore struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memStore) Get(name string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[name]
	return v, ok, nil
}

func (s *memStore) Set(_ context.Context, name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = value
	return nil
}

func (s *memStore) Delete(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, name)
	return nil
}

type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

type rig struct {
	t     *testing.T
	as    *oauthtest.Server
	b     *Broker
	store *memStore
	clock *clock
}

func newRig(t *testing.T, asOpt oauthtest.Options, opt Options) *rig {
	r := &rig{t: t, as: oauthtest.New(t, asOpt), store: &memStore{m: map[string]string{}}, clock: &clock{}}
	opt.Secrets, opt.Now = r.store, r.clock.now
	opt.Open = func(context.Context, string) error { return errors.New("no browser in tests") }
	r.b = New(opt)
	t.Cleanup(func() { r.b.Close() })
	return r
}

// signIn runs a whole sign-in for server "s1", following the redirect like a browser.
func (r *rig) signIn() {
	r.t.Helper()
	done := make(chan error, 1)
	st, err := r.b.Begin(context.Background(), Request{ServerID: "s1", ServerName: "S1", URL: r.as.MCPURL,
		Done: func(err error) { done <- err }})
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := http.Get(st.AuthURL)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-done; err != nil {
		r.t.Fatalf("sign-in: %v", err)
	}
}

// TestConcurrentRequestsShareOneRenewal: refresh tokens rotate, so requests that find
// the token expired at the same time must share one renewal.
func TestConcurrentRequestsShareOneRenewal(t *testing.T) {
	r := newRig(t, oauthtest.Options{}, Options{})
	r.signIn()
	r.clock.advance(2 * time.Hour)
	ts, _ := r.b.Handler("s1", r.as.MCPURL).TokenSource(context.Background())
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			tok, err := ts.Token()
			if err != nil || tok == nil {
				t.Errorf("token: %v %v", tok, err)
				return
			}
			got[i] = tok.AccessToken
		})
	}
	wg.Wait()
	if c := r.as.Counts(); c.Refreshes != 1 || c.Refused != 0 {
		t.Fatalf("counts %+v", c)
	}
	for _, g := range got {
		if g != got[0] || !strings.HasPrefix(g, "access-2-") {
			t.Fatalf("tokens %v", got)
		}
	}
}

// TestTokenStaysWithItsURL: a token is never sent to another URL than the one it was
// issued for (the server's URL was edited).
func TestTokenStaysWithItsURL(t *testing.T) {
	r := newRig(t, oauthtest.Options{}, Options{})
	r.signIn()
	ts, _ := r.b.Handler("s1", r.as.URL+"/elsewhere").TokenSource(context.Background())
	if tok, err := ts.Token(); err != nil || tok != nil {
		t.Fatalf("token for another URL: %v %v", tok, err)
	}
	if st := r.b.Status("s1", r.as.URL+"/elsewhere"); st.SignedIn {
		t.Fatal("signed in for another URL")
	}
	if st := r.b.Status("s1", r.as.MCPURL); !st.SignedIn || !st.Renewable || st.Issuer != r.as.URL {
		t.Fatalf("status %+v", st)
	}
}

// TestUnauthorizedRenewsOnce: a 401 renews the token once; a 401 for the renewed token
// means "sign in", not another renewal.
func TestUnauthorizedRenewsOnce(t *testing.T) {
	r := newRig(t, oauthtest.Options{}, Options{})
	r.signIn()
	h := r.b.Handler("s1", r.as.MCPURL)
	ts, _ := h.TokenSource(context.Background())
	first, _ := ts.Token()
	challenge := http.Header{"Www-Authenticate": {`Bearer resource_metadata="` + r.as.URL + `/.well-known/oauth-protected-resource/mcp"`}}
	authorize := func(tok string) error {
		req, _ := http.NewRequest(http.MethodPost, r.as.MCPURL, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		return h.Authorize(context.Background(), req, &http.Response{StatusCode: 401, Header: challenge, Body: http.NoBody})
	}
	if err := authorize(first.AccessToken); err != nil {
		t.Fatalf("first 401: %v", err)
	}
	second, _ := ts.Token()
	if second.AccessToken == first.AccessToken {
		t.Fatal("not renewed")
	}
	// A late 401 for the old token: the new one is already there, just retry.
	if err := authorize(first.AccessToken); err != nil {
		t.Fatalf("late 401: %v", err)
	}
	err := authorize(second.AccessToken)
	var sre *SignInRequiredError
	if !errors.As(err, &sre) || !errors.Is(err, ErrSignInRequired) || sre.ServerID != "s1" {
		t.Fatalf("second 401: %v", err)
	}
	if c := r.as.Counts(); c.Refreshes != 1 {
		t.Fatalf("counts %+v", c)
	}
	if tok, _ := ts.Token(); tok != nil || !r.b.NeedsSignIn("s1") {
		t.Fatalf("the refused token is still used: %v", tok)
	}
	// 403 without insufficient_scope is not something a sign-in fixes.
	req, _ := http.NewRequest(http.MethodPost, r.as.MCPURL, nil)
	if err := h.Authorize(context.Background(), req, &http.Response{StatusCode: 403, Header: http.Header{}, Body: http.NoBody}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("403: %v", err)
	}
}

// TestDeniedAndUnsupported: the user refusing on the authorization page ends the sign-in
// with the server's reason; a server without registration cannot be signed in to.
func TestDeniedAndUnsupported(t *testing.T) {
	r := newRig(t, oauthtest.Options{}, Options{})
	done := make(chan error, 1)
	st, err := r.b.Begin(context.Background(), Request{ServerID: "s1", ServerName: "S1", URL: r.as.MCPURL, Open: true,
		Done: func(err error) { done <- err }})
	if err != nil || st.Opened {
		t.Fatalf("begin %+v %v", st, err)
	}
	q := strings.SplitN(st.AuthURL, "state=", 2)[1]
	state := strings.SplitN(q, "&", 2)[0]
	resp, err := http.Get(st.RedirectURI + "?error=access_denied&error_description=no+thanks&state=" + state)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "failed") {
		t.Fatalf("page %s", body)
	}
	err = <-done
	if ae := apperr.From(err); ae.Code != apperr.MCPAuthFailed || !strings.Contains(ae.Message, "access_denied") ||
		ae.Action == nil || ae.Action.Kind != "mcp-sign-in" || ae.Action.Target != "s1" {
		t.Fatalf("denied: %+v", ae)
	}
	if err := r.b.Wait(context.Background(), "s1"); !apperr.Is(err, apperr.MCPAuthFailed) {
		t.Fatalf("wait: %v", err)
	}

	r2 := newRig(t, oauthtest.Options{NoRegistration: true}, Options{})
	_, err = r2.b.Begin(context.Background(), Request{ServerID: "s1", ServerName: "S1", URL: r2.as.MCPURL})
	if !apperr.Is(err, apperr.MCPAuthUnsupported) {
		t.Fatalf("no registration: %v", err)
	}
}

// TestPrmCandidates: where protected resource metadata is looked for, in order.
func TestPrmCandidates(t *testing.T) {
	for _, tc := range []struct {
		hint, server string
		want         []string
	}{
		{"", "https://h.example/mcp", []string{
			"https://h.example/.well-known/oauth-protected-resource/mcp https://h.example/mcp",
			"https://h.example/.well-known/oauth-protected-resource https://h.example",
		}},
		{"https://h.example/prm", "https://h.example/a/b?x=1", []string{
			"https://h.example/prm https://h.example/a/b?x=1",
			"https://h.example/.well-known/oauth-protected-resource/a/b https://h.example/a/b?x=1",
			"https://h.example/.well-known/oauth-protected-resource https://h.example",
		}},
	} {
		u, _ := url.Parse(tc.server)
		var got []string
		for _, c := range prmCandidates(tc.hint, u) {
			got = append(got, c.url+" "+c.resource)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tc.server, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
