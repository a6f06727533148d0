package mcp

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp/oauth"
	"github.com/cairn-app/cairn/backend/mcp/oauth/oauthtest"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/store"
)

// fakeClock is the sign-in's clock: real time plus an offset the test moves forward.
type fakeClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// oauthRig is a manager over a real SQLite file and the secret store's file backend,
// with the OAuth sign-in, against a local authorization server and protected MCP server.
type oauthRig struct {
	*harness
	as      *oauthtest.Server
	secrets *secrets.Store
	broker  *oauth.Broker
	clock   *fakeClock
	dir     string
	all     *events.Subscription // every event, for the "no secret in an event" check
}

func newOAuthRig(t *testing.T, opt oauth.Options) *oauthRig {
	t.Helper()
	r := &oauthRig{as: oauthtest.New(t, oauthtest.Options{}), clock: &fakeClock{}, dir: t.TempDir()}
	ctx := context.Background()
	db, err := store.Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bus := events.NewBus()
	r.secrets = secrets.Open(ctx, r.dir, db, bus, secrets.Options{Force: secrets.BackendFile})
	opt.Secrets, opt.Now = r.secrets, r.clock.now
	opt.Open = func(context.Context, string) error {
		t.Error("a test never opens the system browser")
		return nil
	}
	r.broker = oauth.New(opt)
	t.Cleanup(func() { r.broker.Close() }) // after the manager's Close (cleanups run last-in first-out)
	r.all = bus.Subscribe(1 << 16)
	r.harness = newHarness(t, func(h *harness) {
		h.bus = bus
		h.sub = bus.Subscribe(1 << 14)
	}, func(c *Config) {
		c.DB, c.Bus, c.Secrets, c.SignIn, c.DataDir = db, bus, r.secrets, r.broker, r.dir
	})
	return r
}

// browse plays the browser: it opens the authorization page and follows its redirect
// to the loopback listener, returning the page the user would see.
func browse(t *testing.T, authURL string) (int, string) {
	t.Helper()
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func needsSignIn(v ServerView) bool {
	return v.Status.State == StateNeedsSignIn && v.Status.OAuth == nil
}

func (r *oauthRig) signIn(id string) SignInStart {
	r.t.Helper()
	r.drain() // waits after this see only what the sign-in causes
	st, err := r.m.SignIn(ctxT(r.t, 10*time.Second), id, false)
	if err != nil {
		r.t.Fatalf("sign in: %v", err)
	}
	if st.Opened {
		r.t.Fatal("opened a browser without being asked to")
	}
	return st
}

// drain drops the events seen so far.
func (r *oauthRig) drain() {
	for {
		select {
		case <-r.sub.C:
		default:
			return
		}
	}
}

func (r *oauthRig) whoami(id string) (string, error) {
	res, err := r.call(id, "whoami", `{}`, nil)
	return res.Content, err
}

func (r *oauthRig) stored(name string) (string, bool) {
	v, ok, err := r.secrets.Get(name)
	if err != nil {
		r.t.Fatal(err)
	}
	return v, ok
}

// TestOAuthSignIn walks a remote server's whole OAuth life: a 401 makes it "needs sign-in";
// the sign-in (discovery, dynamic registration, PKCE, loopback redirect) stores the tokens
// in the keyring and lists its tools; an expired token is renewed before use, a refused one
// after the 401; a refused renewal means "needs sign-in" again; a second sign-in reuses the
// registration; sign-out deletes the tokens. No token or client secret reaches SQLite, the
// log or an event.
func TestOAuthSignIn(t *testing.T) {
	r := newOAuthRig(t, oauth.Options{})
	v := r.save(Server{Name: "protected", URL: r.as.MCPURL, Enabled: true})
	id := v.ID

	// The warmer's connect meets the 401 and its resource_metadata hint.
	v = r.wait(id, 10*time.Second, "needs sign-in", needsSignIn)
	if e := v.Status.Error; e == nil || e.Code != apperr.MCPAuthRequired || e.Action == nil ||
		e.Action.Kind != "mcp-sign-in" || e.Action.Target != id || e.Params["server"] != "protected" {
		t.Fatalf("status error %+v", v.Status.Error)
	}
	if v.Status.RetryAt != 0 {
		t.Fatal("a server that needs a sign-in is retried on its own")
	}
	_, err := r.m.RefreshTools(ctxT(t, 10*time.Second), id)
	wantCode(t, err, apperr.MCPAuthRequired)

	// Sign in: the browser follows the authorization page back to the loopback listener.
	st := r.signIn(id)
	u, _ := url.Parse(st.AuthURL)
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" ||
		q.Get("redirect_uri") != st.RedirectURI || !strings.HasPrefix(st.RedirectURI, "http://127.0.0.1:") ||
		q.Get("resource") != r.as.MCPURL || !strings.Contains(q.Get("scope"), oauthtest.Scope) {
		t.Fatalf("authorization URL %s (redirect %s)", st.AuthURL, st.RedirectURI)
	}
	if v, _ := r.m.View(context.Background(), id); v.Status.OAuth == nil || !v.Status.OAuth.Pending || v.Status.OAuth.AuthURL != st.AuthURL {
		t.Fatalf("pending status %+v", v.Status.OAuth)
	}
	code, body := browse(t, st.AuthURL)
	if code != http.StatusOK || !strings.Contains(body, "You can close this tab") {
		t.Fatalf("callback page %d: %s", code, body)
	}
	v = r.wait(id, 10*time.Second, "ready with tools after sign-in", func(v ServerView) bool { return ready(v) && hasTool("whoami")(v) })
	if o := v.Status.OAuth; o == nil || !o.SignedIn || !o.Renewable || o.Pending || o.ExpiresAt == 0 {
		t.Fatalf("signed-in status %+v", o)
	}
	if c := r.as.Counts(); c.Registrations != 1 || c.Exchanges != 1 {
		t.Fatalf("counts %+v", c)
	}
	tokenBlob, ok := r.stored(oauth.TokenKey(id))
	clientBlob, ok2 := r.stored(oauth.ClientKey(id))
	if !ok || !ok2 || !strings.Contains(tokenBlob, "access-1-") || !strings.Contains(clientBlob, "client-") {
		t.Fatalf("keyring: token %v client %v", ok, ok2)
	}
	// The secret list shows a value's last 4 characters: they must not be credential text.
	if m := secrets.Mask(tokenBlob); !strings.HasSuffix(m, "}") {
		t.Fatalf("the token's last 4 characters %q", m)
	}
	if got, err := r.whoami(id); err != nil || got != "token #1" {
		t.Fatalf("whoami %q %v", got, err)
	}

	// The access token expires on Cairn's clock: renewed before the call, transparently.
	r.clock.advance(2 * time.Hour)
	if got, err := r.whoami(id); err != nil || got != "token #2" {
		t.Fatalf("after expiry: %q %v", got, err)
	}
	if c := r.as.Counts(); c.Refreshes != 1 {
		t.Fatalf("refreshes %d", c.Refreshes)
	}

	// The server stops taking the access token early: one renewal after the 401.
	r.as.RevokeAccess()
	if got, err := r.whoami(id); err != nil || got != "token #3" {
		t.Fatalf("after a 401: %q %v", got, err)
	}
	if c := r.as.Counts(); c.Refreshes != 2 {
		t.Fatalf("refreshes %d", c.Refreshes)
	}

	// The token expires and the authorization server refuses the renewal: back to
	// "needs sign-in".
	r.as.RevokeAll()
	r.clock.advance(2 * time.Hour)
	_, err = r.whoami(id)
	wantCode(t, err, apperr.MCPAuthRequired)
	r.wait(id, 10*time.Second, "needs sign-in after a refused renewal", needsSignIn)
	if _, ok := r.stored(oauth.TokenKey(id)); ok {
		t.Fatal("a refused token stays in the keyring")
	}
	if _, ok := r.stored(oauth.ClientKey(id)); !ok {
		t.Fatal("the client registration was dropped with the token")
	}
	if c := r.as.Counts(); c.Refreshes != 2 || c.Refused != 1 {
		t.Fatalf("counts %+v", c)
	}

	// Signing in again reuses the stored registration.
	st = r.signIn(id)
	if code, body := browse(t, st.AuthURL); code != http.StatusOK {
		t.Fatalf("second sign-in page %d: %s", code, body)
	}
	r.wait(id, 10*time.Second, "ready after the second sign-in", ready)
	if got, err := r.whoami(id); err != nil || got != "token #4" {
		t.Fatalf("after signing in again: %q %v", got, err)
	}
	if c := r.as.Counts(); c.Registrations != 1 || r.as.Clients() != 1 {
		t.Fatalf("registered again: %+v", c)
	}

	// Sign out: tokens gone, the server waits for a sign-in.
	v, err = r.m.SignOut(context.Background(), id)
	if err != nil || v.Status.State != StateNeedsSignIn || v.Status.OAuth != nil {
		t.Fatalf("sign out: %+v %v", v.Status, err)
	}
	if _, ok := r.stored(oauth.TokenKey(id)); ok {
		t.Fatal("sign-out left the token in the keyring")
	}
	_, err = r.whoami(id)
	wantCode(t, err, apperr.MCPAuthRequired)

	// No token or client secret in SQLite (database, WAL), the server's log or an event.
	r.checkNoSecrets(id)

	// Deleting the server forgets the registration too.
	if err := r.m.Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.stored(oauth.ClientKey(id)); ok {
		t.Fatal("the client registration outlived its server")
	}
}

func (r *oauthRig) checkNoSecrets(id string) {
	t := r.t
	t.Helper()
	leaked := r.as.Secrets()
	if len(leaked) < 9 {
		t.Fatalf("only %d secrets issued", len(leaked))
	}
	scan := func(what string, b []byte) {
		for _, s := range leaked {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a token or client secret (%.12s…)", what, s)
			}
		}
	}
	for _, f := range []string{store.FileName, store.FileName + "-wal", store.FileName + "-shm"} {
		b, err := os.ReadFile(filepath.Join(r.dir, f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		scan(f, b)
	}
	logFile, err := os.ReadFile(LogFile(r.dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(logFile, []byte("signed in")) {
		t.Fatalf("the log does not mention the sign-in:\n%s", logFile)
	}
	scan("the server log", logFile)
	n := 0
	for {
		select {
		case ev := <-r.all.C:
			n++
			scan("event "+ev.Type, ev.Data)
			continue
		default:
		}
		break
	}
	if n == 0 {
		t.Fatal("no events seen")
	}
	// And they are where they belong: the secret store's file.
	b, _ := os.ReadFile(filepath.Join(r.dir, secrets.FileName))
	if !bytes.Contains(b, []byte("client-secret-")) {
		t.Fatal("the client secret is not in the secret store")
	}
}

// TestOAuthStateMismatch: a redirect that does not carry this sign-in's state is refused
// and stores nothing; the sign-in goes on and the real redirect completes it.
func TestOAuthStateMismatch(t *testing.T) {
	r := newOAuthRig(t, oauth.Options{})
	v := r.save(Server{Name: "protected", URL: r.as.MCPURL, Enabled: true})
	r.wait(v.ID, 10*time.Second, "needs sign-in", needsSignIn)
	st := r.signIn(v.ID)

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(st.AuthURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound || loc.Query().Get("code") == "" {
		t.Fatalf("authorize answered %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	forged := *loc
	q := forged.Query()
	q.Set("state", "forged-"+q.Get("state"))
	forged.RawQuery = q.Encode()
	code, body := browse(t, forged.String())
	if code != http.StatusBadRequest || !strings.Contains(body, "does not belong") {
		t.Fatalf("forged redirect: %d %s", code, body)
	}
	if _, ok := r.stored(oauth.TokenKey(v.ID)); ok {
		t.Fatal("a forged redirect stored a token")
	}
	if v, _ := r.m.View(context.Background(), v.ID); v.Status.OAuth == nil || !v.Status.OAuth.Pending {
		t.Fatalf("the sign-in ended on a forged redirect: %+v", v.Status)
	}

	code, body = browse(t, loc.String())
	if code != http.StatusOK || !strings.Contains(body, "Signed in to protected") {
		t.Fatalf("real redirect: %d %s", code, body)
	}
	r.wait(v.ID, 10*time.Second, "ready", func(v ServerView) bool { return ready(v) && hasTool("whoami")(v) })
	// A replayed redirect finds the listener closed.
	if _, err := http.Get(loc.String()); err == nil {
		t.Fatal("the loopback listener still answers after the sign-in")
	}
}

// TestOAuthListenerTimeoutAndCancel: a sign-in that nobody completes closes its
// listener after the timeout and says so; CancelMCPAuthorization closes it at once.
func TestOAuthListenerTimeoutAndCancel(t *testing.T) {
	r := newOAuthRig(t, oauth.Options{FlowTimeout: 300 * time.Millisecond})
	v := r.save(Server{Name: "protected", URL: r.as.MCPURL, Enabled: true})
	r.wait(v.ID, 10*time.Second, "needs sign-in", needsSignIn)

	st := r.signIn(v.ID)
	v = r.wait(v.ID, 10*time.Second, "the sign-in timed out", func(v ServerView) bool {
		return v.Status.OAuth == nil && v.Status.Error != nil && v.Status.Error.Code == apperr.MCPAuthTimeout
	})
	if v.Status.State != StateNeedsSignIn || v.Status.Error.Action == nil || v.Status.Error.Action.Kind != "mcp-sign-in" {
		t.Fatalf("after the timeout %+v", v.Status)
	}
	mustBeClosed(t, st.RedirectURI)
	err := r.m.WaitSignIn(context.Background(), v.ID)
	wantCode(t, err, apperr.MCPAuthTimeout)

	st, err = r.m.SignIn(ctxT(t, 10*time.Second), v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err = r.m.CancelSignIn(context.Background(), v.ID)
	if err != nil || v.Status.OAuth != nil || v.Status.State != StateNeedsSignIn || v.Status.Error.Code != apperr.MCPAuthRequired {
		t.Fatalf("after cancel %+v %v", v.Status, err)
	}
	mustBeClosed(t, st.RedirectURI)
	if c := r.as.Counts(); c.Exchanges != 0 {
		t.Fatalf("counts %+v", c)
	}
}

func mustBeClosed(t *testing.T, redirect string) {
	t.Helper()
	u, _ := url.Parse(redirect)
	if c, err := net.DialTimeout("tcp", u.Host, 2*time.Second); err == nil {
		c.Close()
		t.Fatalf("the loopback listener %s is still open", u.Host)
	}
}

// TestOAuthPlain401: a 401 from a server without OAuth metadata is a refusal of its
// headers, not a sign-in; asking to sign in says the server offers none.
func TestOAuthPlain401(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	r := newOAuthRig(t, oauth.Options{})
	v := r.save(Server{Name: "keyed", URL: srv.URL + "/mcp", Enabled: true})
	_, err := r.m.RefreshTools(ctxT(t, 10*time.Second), v.ID)
	ae := wantCode(t, err, apperr.MCPAuthRejected)
	if ae.Params["status"] != http.StatusUnauthorized {
		t.Fatalf("params %v", ae.Params)
	}
	_, err = r.m.SignIn(ctxT(t, 10*time.Second), v.ID, false)
	wantCode(t, err, apperr.MCPAuthUnsupported)

	// A server with its own Authorization header never takes part in the sign-in.
	v.Headers = []Var{{Name: "Authorization", Value: "Bearer k", Secret: true}}
	v = r.save(v.Server)
	_, err = r.m.SignIn(ctxT(t, 10*time.Second), v.ID, false)
	wantCode(t, err, apperr.MCPAuthUnsupported)
}

// TestOAuthOverSSE: the older HTTP+SSE transport gets the same token handling through a
// round tripper (go-sdk's SSE client has no OAuth hook): "needs sign-in", the sign-in
// (probed with GET), the token on the stream and on every message, renewal after a 401.
func TestOAuthOverSSE(t *testing.T) {
	r := newOAuthRig(t, oauth.Options{})
	v := r.save(Server{Name: "old", Transport: TransportSSE, URL: r.as.SSEURL, Enabled: true})
	r.wait(v.ID, 10*time.Second, "needs sign-in", needsSignIn)
	st := r.signIn(v.ID)
	if code, body := browse(t, st.AuthURL); code != http.StatusOK {
		t.Fatalf("callback page %d: %s", code, body)
	}
	r.wait(v.ID, 10*time.Second, "ready", func(v ServerView) bool { return ready(v) && v.Status.Transport == TransportSSE })
	// (go-sdk's SSE handler does not tell a tool which token called: the counts do.)
	if _, err := r.whoami(v.ID); err != nil {
		t.Fatal(err)
	}
	r.as.RevokeAccess()
	if _, err := r.whoami(v.ID); err != nil {
		t.Fatalf("after a 401: %v", err)
	}
	if c := r.as.Counts(); c.Exchanges != 1 || c.Refreshes != 1 {
		t.Fatalf("counts %+v", c)
	}
}
