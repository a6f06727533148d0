// Package oauth signs Cairn in to remote MCP servers that are protected with OAuth 2.1, as
// the MCP authorization spec describes: protected-resource and authorization-server
// metadata discovery, dynamic client registration, the authorization code grant with
// PKCE (S256) through the system browser and a loopback redirect on 127.0.0.1, and
// refresh tokens. The authorization step itself is go-sdk's auth.AuthorizationCodeHandler
// (the handler the MCP conformance harness proved against the auth/* scenarios).
//
// Tokens and client registrations live in the secret store (the OS keyring, or its 0600
// file fallback) under mcp.<serverId>.oauth.token and mcp.<serverId>.oauth.client, never
// in SQLite, logs or events. A token is only ever sent to the server URL it was issued
// for.
package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Store keeps tokens and client registrations (secrets.Store implements it).
type Store interface {
	Get(name string) (value string, ok bool, err error)
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
}

// Opener shows the authorization page to the user; SystemBrowser is the default.
type Opener func(ctx context.Context, url string) error

// Options configure a Broker; zero values pick the defaults.
type Options struct {
	// Secrets holds the tokens; without it nothing can be signed in.
	Secrets Store
	// HTTPClient makes the metadata, registration, token and probe requests (default: a
	// client with a 30 s timeout). go-sdk's discovery refuses private, non-loopback
	// addresses unless this client's transport dials on its own.
	HTTPClient *http.Client
	// Open shows the authorization page when a sign-in asks for it (SystemBrowser).
	Open Opener
	// FlowTimeout is how long a sign-in waits for the browser before the loopback
	// listener closes (5 minutes).
	FlowTimeout time.Duration
	// RefreshSkew renews an access token this long before it expires (1 minute).
	RefreshSkew time.Duration
	// Now is the clock that decides whether a token has expired (time.Now).
	Now func() time.Time
	// ClientName and Version are sent in the dynamic client registration.
	ClientName string
	Version    string
	Log        *slog.Logger
}

// Broker owns the OAuth state of every remote MCP server of one Cairn process: stored
// tokens (loaded once, renewed before they expire or after a 401), and the sign-ins
// waiting for the browser. All methods are safe for concurrent use.
type Broker struct {
	opt  Options
	http *http.Client
	log  *slog.Logger

	ctx    context.Context // ends at Close: sign-ins stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	servers map[string]*entry
	notify  func(serverID, note string)
	closed  bool
}

// entry is one server's OAuth state.
type entry struct {
	id string

	// mu serializes loading, renewing and saving the token: concurrent requests share
	// one refresh (a rotated refresh token can be used only once).
	mu        sync.Mutex
	tok       *token
	retried   string // the access token a 401 already renewed to…
	retriedAt time.Time
	stepUp    []string // scopes a 403 insufficient_scope asked for

	loaded atomic.Bool
	view   atomic.Pointer[token] // what Status reads without waiting for a refresh
	needs  atomic.Bool           // the last refusal means "sign in"

	// Guarded by Broker.mu.
	flow *flow // the sign-in waiting for the browser
	last *flow // the latest sign-in, for Wait
}

// New returns a broker; Close ends its sign-ins.
func New(opt Options) *Broker {
	opt.FlowTimeout = cmp.Or(opt.FlowTimeout, 5*time.Minute)
	opt.RefreshSkew = cmp.Or(opt.RefreshSkew, time.Minute)
	opt.ClientName = cmp.Or(opt.ClientName, "Cairn")
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Open == nil {
		opt.Open = SystemBrowser
	}
	hc := opt.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Broker{opt: opt, http: hc, log: log, ctx: ctx, cancel: cancel, servers: map[string]*entry{}}
}

// OnChange registers the one function told about a server's OAuth changes (a token
// renewed or dropped, a sign-in needed); the note is for the server's log and never
// holds a secret. It is called without locks held.
func (b *Broker) OnChange(f func(serverID, note string)) {
	b.mu.Lock()
	b.notify = f
	b.mu.Unlock()
}

func (b *Broker) tell(id, format string, args ...any) {
	b.mu.Lock()
	f := b.notify
	b.mu.Unlock()
	if f != nil {
		f(id, fmt.Sprintf(format, args...))
	}
}

// Close cancels every sign-in in progress and waits until their listeners are closed.
func (b *Broker) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
	return nil
}

func (b *Broker) entry(id string) *entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.servers[id]
	if e == nil {
		e = &entry{id: id}
		b.servers[id] = e
	}
	return e
}

// Status is what a window may know about a server's sign-in: never a token.
type Status struct {
	// SignedIn: a token for the server's current URL is stored.
	SignedIn bool `json:"signedIn"`
	// ExpiresAt is when the access token expires (unix ms; 0 = not said); Renewable says
	// a refresh token is stored, so it renews without the user.
	ExpiresAt int64    `json:"expiresAt,omitempty"`
	Renewable bool     `json:"renewable,omitempty"`
	Scopes    []string `json:"scopes,omitempty"`
	Issuer    string   `json:"issuer,omitempty"`
	// Pending: a sign-in waits for the browser at AuthURL until PendingUntil (unix ms).
	Pending      bool   `json:"pending,omitempty"`
	AuthURL      string `json:"authUrl,omitempty"`
	PendingUntil int64  `json:"pendingUntil,omitempty"`
}

// Status reports a server's sign-in. resourceURL is the server's configured URL: a token
// issued for another URL does not count.
func (b *Broker) Status(serverID, resourceURL string) Status {
	e := b.entry(serverID)
	b.ensureLoaded(e)
	var st Status
	if t := e.view.Load(); t != nil && t.Resource == resourceURL {
		st.SignedIn = true
		st.ExpiresAt = t.Expiry
		st.Renewable = t.RefreshToken != ""
		st.Scopes = strings.Fields(t.Scope)
		st.Issuer = t.Issuer
	}
	b.mu.Lock()
	if f := e.flow; f != nil {
		st.Pending = true
		st.AuthURL = f.url()
		st.PendingUntil = f.expires.UnixMilli()
	}
	b.mu.Unlock()
	return st
}

// NeedsSignIn reports whether the server's last refusal was one a sign-in fixes.
func (b *Broker) NeedsSignIn(serverID string) bool {
	return b.entry(serverID).needs.Load()
}

// --- tokens ---

func (b *Broker) ensureLoaded(e *entry) {
	if e.loaded.Load() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.loaded.Load() {
		b.reloadLocked(e)
	}
}

// reloadLocked reads the stored token again (another Cairn process may have signed in
// or renewed it).
func (b *Broker) reloadLocked(e *entry) {
	t, err := b.loadToken(e.id)
	if err != nil {
		b.log.Warn("mcp oauth: cannot read the stored token", "server", e.id, "err", err)
		if e.loaded.Load() {
			return // keep what is in memory
		}
	}
	e.tok = t
	e.view.Store(t)
	e.loaded.Store(true)
}

func (b *Broker) setTokenLocked(e *entry, t *token) {
	e.tok = t
	e.view.Store(t)
	e.loaded.Store(true)
}

func (b *Broker) fresh(t *token) bool {
	if t == nil || t.AccessToken == "" {
		return false
	}
	return t.Expiry == 0 || b.opt.Now().Add(b.opt.RefreshSkew).Before(time.UnixMilli(t.Expiry))
}

// accessToken returns the token to send to resourceURL, renewing it first when it is
// about to expire. It returns nil (send nothing) when there is none for that URL, or when
// renewal was refused: the server then answers 401 and the request reports "sign in".
// Only a renewal that could not reach the authorization server is an error.
func (b *Broker) accessToken(serverID, resourceURL string) (*oauth2.Token, error) {
	e := b.entry(serverID)
	var note string
	defer func() {
		if note != "" {
			b.tell(serverID, "%s", note)
		}
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.loaded.Load() {
		b.reloadLocked(e)
	}
	t := e.tokFor(resourceURL)
	if t == nil {
		return nil, nil
	}
	if b.fresh(t) {
		return t.oauth2(), nil
	}
	b.reloadLocked(e) // another process may have renewed it already
	if t = e.tokFor(resourceURL); t == nil {
		return nil, nil
	}
	if b.fresh(t) {
		return t.oauth2(), nil
	}
	if t.RefreshToken == "" {
		note = "the access token expired and the server gave no refresh token: sign in again"
		return nil, nil
	}
	nt, err := b.refreshLocked(e)
	if err == nil {
		note = "renewed the access token" + until(nt.Expiry)
		return nt.oauth2(), nil
	}
	if !refused(err) {
		return nil, &RefreshError{Err: err}
	}
	b.dropLocked(e)
	e.needs.Store(true)
	note = "the authorization server refused to renew the sign-in (" + short(err) + "): sign in again"
	return nil, nil
}

// refreshLocked renews the access token with the refresh token and stores the result.
func (b *Broker) refreshLocked(e *entry) (*token, error) {
	t := e.tok
	cfg := &oauth2.Config{
		ClientID:     t.ClientID,
		ClientSecret: t.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: oauth2.AuthStyle(t.AuthStyle)},
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	ctx = context.WithValue(ctx, oauth2.HTTPClient, b.http)
	ot, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: t.RefreshToken}).Token()
	if err != nil {
		return nil, err
	}
	n := *t
	n.fill(ot, b.opt.Now())
	if err := b.saveToken(ctx, e.id, &n); err != nil {
		return nil, err
	}
	b.setTokenLocked(e, &n)
	e.needs.Store(false)
	return &n, nil
}

// dropLocked forgets a token the authorization server or the resource no longer takes.
func (b *Broker) dropLocked(e *entry) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 10*time.Second)
	defer cancel()
	if err := b.deleteToken(ctx, e.id); err != nil {
		b.log.Warn("mcp oauth: cannot delete a refused token", "server", e.id, "err", err)
	}
	b.setTokenLocked(e, nil)
}

func (e *entry) tokFor(resourceURL string) *token {
	if e.tok == nil || e.tok.Resource != resourceURL {
		return nil
	}
	return e.tok
}

// refused reports whether the authorization server answered a renewal with an OAuth
// error (invalid_grant, invalid_client, …), as opposed to not answering.
func refused(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return false
	}
	if re.ErrorCode != "" {
		return true
	}
	return re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500
}

// unauthorized decides what a 401 or 403 from resourceURL means: renew once and retry,
// or "sign in" (SignInRequiredError), or a refusal OAuth cannot fix (ErrNotOAuth,
// ErrForbidden).
func (b *Broker) unauthorized(ctx context.Context, serverID, resourceURL string, status int, header http.Header, used string) (retry bool, err error) {
	challenges, _ := oauthex.ParseWWWAuthenticate(header.Values("WWW-Authenticate"))
	e := b.entry(serverID)
	var note string
	defer func() {
		if note != "" {
			b.tell(serverID, "%s", note)
		}
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	if status == http.StatusForbidden {
		if challengeParam(challenges, "error") != "insufficient_scope" {
			return false, ErrForbidden
		}
		e.stepUp = strings.Fields(challengeParam(challenges, "scope"))
		e.needs.Store(true)
		note = "the server asks for more permissions: sign in again"
		return false, &SignInRequiredError{ServerID: serverID, Reason: "insufficient_scope"}
	}
	b.reloadLocked(e)
	hadToken := false
	if t := e.tokFor(resourceURL); t != nil {
		hadToken = true
		if t.AccessToken != used && b.fresh(t) {
			return true, nil // renewed meanwhile (by another request or process)
		}
		again := used != "" && used == e.retried && b.opt.Now().Sub(e.retriedAt) < time.Minute
		if t.RefreshToken != "" && !again {
			nt, err := b.refreshLocked(e)
			if err == nil {
				e.retried, e.retriedAt = nt.AccessToken, b.opt.Now()
				note = "the server refused the access token; renewed it" + until(nt.Expiry)
				return true, nil
			}
			if !refused(err) {
				return false, &RefreshError{Err: err}
			}
			note = "the authorization server refused to renew the sign-in (" + short(err) + "): sign in again"
		} else {
			note = "the server refused the access token: sign in again"
		}
		b.dropLocked(e)
	}
	if !hadToken && challengeParam(challenges, "resource_metadata") == "" && !b.offersOAuth(ctx, resourceURL) {
		return false, ErrNotOAuth
	}
	e.needs.Store(true)
	if note == "" {
		note = "the server needs a sign-in"
	}
	return false, &SignInRequiredError{ServerID: serverID, Reason: "unauthorized"}
}

// offersOAuth looks for the metadata that says a server takes OAuth tokens: protected
// resource metadata, or (2025-03-26 servers) authorization server metadata at its root.
func (b *Broker) offersOAuth(ctx context.Context, resourceURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d, err := b.discover(ctx, resourceURL, nil)
	return err == nil && d.metadata
}

// SignOut forgets a server's tokens (its client registration stays for the next
// sign-in) and cancels a sign-in in progress.
func (b *Broker) SignOut(ctx context.Context, serverID string) error {
	b.Cancel(serverID)
	e := b.entry(serverID)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := b.deleteToken(ctx, serverID); err != nil {
		return err
	}
	b.setTokenLocked(e, nil)
	e.retried, e.stepUp = "", nil
	e.needs.Store(true)
	return nil
}

// Forget removes everything stored for a server: tokens and its client registration
// (the server was deleted, or its URL changed).
func (b *Broker) Forget(ctx context.Context, serverID string) error {
	b.Cancel(serverID)
	e := b.entry(serverID)
	e.mu.Lock()
	err := errors.Join(b.deleteToken(ctx, serverID), b.deleteClient(ctx, serverID))
	b.setTokenLocked(e, nil)
	e.retried, e.stepUp = "", nil
	e.needs.Store(false)
	e.mu.Unlock()
	return err
}

// --- the go-sdk seam ---

// Handler is the go-sdk OAuth handler of one server's Streamable HTTP connections: it
// attaches the stored access token (renewed before it expires), renews once after a
// 401, and otherwise answers the 401 with a SignInRequiredError, without ever blocking
// a connection on the user. resourceURL is the server's configured URL.
func (b *Broker) Handler(serverID, resourceURL string) *Handler {
	return &Handler{b: b, id: serverID, url: resourceURL}
}

// Handler implements auth.OAuthHandler for one server.
type Handler struct {
	b   *Broker
	id  string
	url string
}

var _ auth.OAuthHandler = (*Handler)(nil)

// TokenSource returns the server's stored token; its Token is nil when there is none.
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return tokenSource{h}, nil
}

type tokenSource struct{ h *Handler }

func (s tokenSource) Token() (*oauth2.Token, error) { return s.h.b.accessToken(s.h.id, s.h.url) }

// Authorize is go-sdk's call after a 401 or 403: nil means "retry" (the token was
// renewed); a SignInRequiredError means the user has to sign in (AuthorizeMCPServer).
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	used := bearer(req.Header.Get("Authorization"))
	retry, err := h.b.unauthorized(ctx, h.id, h.url, resp.StatusCode, resp.Header, used)
	if retry {
		return nil
	}
	return err
}

// Wrap returns a RoundTripper that does the same for transports without go-sdk's OAuth
// hook (the older HTTP+SSE transport): it sets the bearer token, and after a 401 renews
// once and repeats the request when its body can be replayed.
func (h *Handler) Wrap(base http.RoundTripper) http.RoundTripper {
	return &transport{h: h, base: base}
}

type transport struct {
	h    *Handler
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	send := func() (*http.Response, string, error) {
		tok, err := t.h.b.accessToken(t.h.id, t.h.url)
		if err != nil {
			return nil, "", err
		}
		r := req
		used := ""
		if tok != nil {
			r = req.Clone(req.Context())
			if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
				if r.Body, err = req.GetBody(); err != nil {
					return nil, "", err
				}
			}
			r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			used = tok.AccessToken
		}
		resp, err := t.base.RoundTrip(r)
		return resp, used, err
	}
	resp, used, err := send()
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	retry, _ := t.h.b.unauthorized(req.Context(), t.h.id, t.h.url, resp.StatusCode, resp.Header, used)
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	if !retry || !replayable {
		return resp, nil
	}
	resp.Body.Close()
	resp, _, err = send()
	return resp, err
}

func bearer(h string) string {
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

func challengeParam(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if v := c.Params[name]; v != "" && (c.Scheme == "bearer" || name == "resource_metadata") {
			return v
		}
	}
	return ""
}

// --- errors ---

// SignInRequiredError is the answer to a 401 (or 403 insufficient_scope) of a server
// that takes OAuth tokens when no stored token works: the user has to sign in.
type SignInRequiredError struct {
	ServerID string
	Reason   string // "unauthorized" or "insufficient_scope"
}

func (e *SignInRequiredError) Error() string {
	if e.Reason == "insufficient_scope" {
		return "the server asks for more permissions: sign in again"
	}
	return "the server needs a sign-in"
}

// Is makes errors.Is(err, ErrSignInRequired) true.
func (e *SignInRequiredError) Is(target error) bool { return target == ErrSignInRequired }

// RefreshError is a renewal that did not reach the authorization server (the sign-in
// stays; the next request tries again).
type RefreshError struct{ Err error }

func (e *RefreshError) Error() string { return "renewing the access token failed: " + e.Err.Error() }
func (e *RefreshError) Unwrap() error { return e.Err }

// Sentinel errors of a refusal.
var (
	// ErrSignInRequired matches every SignInRequiredError.
	ErrSignInRequired = errors.New("the server needs a sign-in")
	// ErrNotOAuth: a 401 from a server that publishes no OAuth metadata (wrong headers).
	ErrNotOAuth = errors.New("the server refused the request and offers no OAuth sign-in")
	// ErrForbidden: a 403 that more scopes would not fix.
	ErrForbidden = errors.New("the server refused the request (HTTP 403)")
)

// --- storage ---

// TokenKey is the secret store name of a server's OAuth tokens.
func TokenKey(serverID string) string { return "mcp." + serverID + ".oauth.token" }

// ClientKey is the secret store name of a server's dynamic client registration.
func ClientKey(serverID string) string { return "mcp." + serverID + ".oauth.client" }

// token is what is stored for a signed-in server: everything a renewal needs.
// SavedAt is the last field on purpose: the secret store's list shows the last four
// characters of each value, which must not be part of a credential.
type token struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Expiry       int64  `json:"expiry,omitempty"` // unix ms; 0 = the server said nothing
	Scope        string `json:"scope,omitempty"`
	// Resource is the MCP server URL the token was issued for; it is sent nowhere else.
	Resource     string `json:"resource"`
	Issuer       string `json:"issuer,omitempty"`
	TokenURL     string `json:"token_url"`
	AuthStyle    int    `json:"auth_style,omitempty"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	SavedAt      int64  `json:"saved_at"`
}

func (t *token) oauth2() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: "Bearer"}
}

// fill takes what the token endpoint answered (a missing refresh token or scope keeps
// the previous one).
func (t *token) fill(ot *oauth2.Token, now time.Time) {
	t.AccessToken = ot.AccessToken
	t.TokenType = ot.TokenType
	if ot.RefreshToken != "" {
		t.RefreshToken = ot.RefreshToken
	}
	t.Expiry = 0
	switch {
	case ot.ExpiresIn > 0:
		t.Expiry = now.Add(time.Duration(ot.ExpiresIn) * time.Second).UnixMilli()
	case !ot.Expiry.IsZero():
		t.Expiry = now.Add(time.Until(ot.Expiry)).UnixMilli() // on the broker's clock
	}
	if s, ok := ot.Extra("scope").(string); ok && s != "" {
		t.Scope = s
	}
	t.SavedAt = now.UnixMilli()
}

// client is a dynamic client registration, reused by later sign-ins with the same
// authorization server. RegisteredAt is last for the same reason as token.SavedAt.
type client struct {
	Issuer          string `json:"issuer"`
	ClientID        string `json:"client_id"`
	ClientSecret    string `json:"client_secret,omitempty"`
	SecretExpiresAt int64  `json:"client_secret_expires_at,omitempty"` // unix ms; 0 = never
	RedirectURI     string `json:"redirect_uri"`
	AuthMethod      string `json:"token_endpoint_auth_method,omitempty"`
	RegisteredAt    int64  `json:"registered_at"`
}

func (b *Broker) store() (Store, error) {
	if b.opt.Secrets == nil {
		return nil, errors.New("no secret store to keep the sign-in in")
	}
	return b.opt.Secrets, nil
}

func (b *Broker) loadToken(id string) (*token, error) {
	var t token
	ok, err := b.load(TokenKey(id), &t)
	if !ok || err != nil || t.AccessToken == "" {
		return nil, err
	}
	return &t, nil
}

func (b *Broker) loadClient(id string) (*client, error) {
	var c client
	ok, err := b.load(ClientKey(id), &c)
	if !ok || err != nil || c.ClientID == "" {
		return nil, err
	}
	return &c, nil
}

func (b *Broker) load(name string, v any) (bool, error) {
	st, err := b.store()
	if err != nil {
		return false, nil
	}
	raw, ok, err := st.Get(name)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return false, fmt.Errorf("the stored %s is not valid: %w", name, err)
	}
	return true, nil
}

func (b *Broker) saveToken(ctx context.Context, id string, t *token) error {
	return b.save(ctx, TokenKey(id), t)
}

func (b *Broker) saveClient(ctx context.Context, id string, c *client) error {
	return b.save(ctx, ClientKey(id), c)
}

func (b *Broker) save(ctx context.Context, name string, v any) error {
	st, err := b.store()
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return st.Set(ctx, name, string(raw))
}

func (b *Broker) deleteToken(ctx context.Context, id string) error {
	return b.del(ctx, TokenKey(id))
}

func (b *Broker) deleteClient(ctx context.Context, id string) error {
	return b.del(ctx, ClientKey(id))
}

func (b *Broker) del(ctx context.Context, name string) error {
	st, err := b.store()
	if err != nil {
		return nil
	}
	if _, ok, err := st.Get(name); err == nil && !ok {
		return nil // nothing stored: no needless write (and no secrets event)
	}
	return st.Delete(ctx, name)
}

// until describes an expiry for the log ("" when the server gave none).
func until(expiryMs int64) string {
	if expiryMs == 0 {
		return ""
	}
	return " (valid until " + time.UnixMilli(expiryMs).Format("15:04:05") + ")"
}

// short is an OAuth error without the response body.
func short(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return re.ErrorCode
		}
		if re.Response != nil {
			return re.Response.Status
		}
	}
	return err.Error()
}

// union keeps the order of a and adds what b has beyond it.
func union(a []string, more ...[]string) []string {
	out := slices.Clone(a)
	for _, m := range more {
		for _, s := range m {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
