package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// CallbackPath is the path of the loopback redirect URI (http://127.0.0.1:<port>/callback).
const CallbackPath = "/callback"

// Request asks for a sign-in to one server.
type Request struct {
	ServerID   string
	ServerName string
	// URL is the server's configured URL: the resource the token is for.
	URL string
	// SSE: the server speaks the older HTTP+SSE transport (probed with GET, not POST).
	SSE bool
	// Headers are the server's configured headers, sent with the probe that fetches the
	// 401 challenge (an Authorization header is never sent).
	Headers map[string]string
	// Open shows the authorization page with Options.Open as well.
	Open bool
	// Done is called once when a sign-in that handed out its URL ends: nil when the
	// tokens are stored, else an *apperr.Error. It runs after the listener closed.
	Done func(error)
}

// Started is a sign-in that waits for the user in the browser.
type Started struct {
	// AuthURL is the authorization page to open.
	AuthURL string
	// RedirectURI is the loopback listener the authorization server sends the browser to.
	RedirectURI string
	// ExpiresAt is when the listener stops waiting.
	ExpiresAt time.Time
	// Opened: Options.Open showed AuthURL (Request.Open).
	Opened bool
}

var (
	errTimedOut = errors.New("the sign-in was not completed in time")
	errCanceled = errors.New("the sign-in was cancelled")
)

// flow is one sign-in waiting for the browser.
type flow struct {
	serverID string
	name     string
	expires  time.Time
	redirect string
	cancel   context.CancelCauseFunc

	mu      sync.Mutex
	state   string // what the callback must carry
	authURL string

	urlc      chan struct{} // closed when the authorization URL is known
	codes     chan callback // the one callback that passed the state check
	delivered atomic.Bool
	result    chan struct{} // closed when err is final (the callback page renders it)
	done      chan struct{} // closed after the listener closed and Done ran
	err       error

	// Set by the handler's NewTokenSource after the code exchange.
	cfg *oauth2.Config
	tok *oauth2.Token
}

type callback struct {
	res *auth.AuthorizationResult
	err error
}

func (f *flow) url() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.authURL
}

// Begin starts a sign-in: it asks the server for its 401 challenge, discovers the
// protected resource and authorization server metadata, registers Cairn with the
// authorization server when it has no client there yet (dynamic client registration;
// the registration is stored), opens a loopback listener on 127.0.0.1 and returns the
// authorization page (PKCE S256, a fresh state) once go-sdk's authorization code handler
// asks for it. The rest happens in the background: the redirect is checked against the
// state, the code is exchanged, the tokens are stored and Request.Done is called. A
// sign-in already in progress for the same server is cancelled first.
func (b *Broker) Begin(ctx context.Context, req Request) (Started, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return Started{}, apperr.New(apperr.Canceled, "mcp oauth: shutting down")
	}
	if _, err := b.store(); err != nil {
		return Started{}, unsupported(req, "there is no secret store to keep the sign-in in")
	}
	b.Cancel(req.ServerID)

	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	preq, presp, challenged, err := b.probe(pctx, req)
	if err != nil {
		return Started{}, err
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(presp.Header.Values("WWW-Authenticate"))
	d, err := b.discover(pctx, req.URL, challenges)
	if err != nil {
		return Started{}, failed(req, fmt.Sprintf("discovering the authorization server: %v", err))
	}
	if !challenged && !d.metadata {
		return Started{}, unsupported(req, "the server did not ask for a sign-in and publishes no OAuth metadata")
	}
	cl, ln, err := b.clientFor(pctx, req, d)
	if err != nil {
		return Started{}, err
	}
	e := b.entry(req.ServerID)
	b.ensureLoaded(e)

	f := &flow{
		serverID: req.ServerID, name: req.ServerName,
		redirect: "http://" + ln.Addr().String() + CallbackPath,
		expires:  b.opt.Now().Add(b.opt.FlowTimeout),
		urlc:     make(chan struct{}), codes: make(chan callback, 1),
		result: make(chan struct{}), done: make(chan struct{}),
	}
	var secret *oauthex.ClientSecretAuth
	if cl.ClientSecret != "" {
		secret = &oauthex.ClientSecretAuth{ClientSecret: cl.ClientSecret}
	}
	e.mu.Lock()
	var previous []string
	if t := e.tokFor(req.URL); t != nil {
		previous = strings.Fields(t.Scope)
	}
	stepUp := e.stepUp
	e.mu.Unlock()
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: cl.ClientID, ClientSecretAuth: secret, Issuer: d.issuer},
		RedirectURL:         f.redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return f.fetch(ctx, args)
		},
		// Keep what an earlier sign-in was granted and what a 403 asked for.
		ScopeFilter:           func(found []string) []string { return union(found, previous, stepUp) },
		RequestRefreshToken:   true,
		AcceptUnadvertisedIss: true,
		Client:                b.http,
		NewTokenSource: func(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			f.cfg, f.tok = cfg, tok
			return oauth2.StaticTokenSource(tok), nil
		},
	})
	if err != nil {
		ln.Close()
		return Started{}, failed(req, err.Error())
	}

	fctx, fcancel := context.WithCancelCause(b.ctx)
	fctx, tcancel := context.WithTimeoutCause(fctx, b.opt.FlowTimeout, errTimedOut)
	f.cancel = func(cause error) { fcancel(cause); tcancel() }
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}

	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		f.cancel(errCanceled)
		ln.Close()
		return Started{}, apperr.New(apperr.Canceled, "mcp oauth: shutting down")
	}
	older := e.flow // a sign-in begun at the same time: this one wins
	e.flow, e.last = f, f
	b.wg.Add(2)
	b.mu.Unlock()
	if older != nil {
		older.cancel(errCanceled)
	}
	go func() {
		defer b.wg.Done()
		_ = srv.Serve(ln)
	}()
	go b.run(fctx, f, h, srv, req, preq, presp, d)

	select {
	case <-f.urlc:
	case <-f.done:
		return Started{}, f.err
	case <-ctx.Done():
		f.cancel(errCanceled)
		<-f.done
		return Started{}, apperr.Wrap(ctx.Err(), apperr.Canceled, "sign in to %s", req.ServerName)
	}
	st := Started{AuthURL: f.url(), RedirectURI: f.redirect, ExpiresAt: f.expires}
	if req.Open {
		if err := b.opt.Open(ctx, st.AuthURL); err != nil {
			b.log.Info("mcp oauth: cannot open the browser", "err", err)
		} else {
			st.Opened = true
		}
	}
	return st, nil
}

// run plays go-sdk's authorization code flow to its end and cleans up.
func (b *Broker) run(ctx context.Context, f *flow, h *auth.AuthorizationCodeHandler, srv *http.Server, req Request, preq *http.Request, presp *http.Response, d *discovery) {
	defer b.wg.Done()
	err := h.Authorize(ctx, preq, presp)
	if err == nil && (f.tok == nil || f.tok.AccessToken == "") {
		err = errors.New("the authorization server issued no access token")
	}
	if err == nil {
		err = b.finishSignIn(req, d, f)
	}
	f.err = b.flowError(ctx, req, err)
	close(f.result) // the callback page shows the outcome

	sctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 5*time.Second)
	if srv.Shutdown(sctx) != nil {
		_ = srv.Close()
	}
	cancel()
	f.cancel(errCanceled) // release the timer

	b.mu.Lock()
	e := b.servers[req.ServerID]
	if e != nil && e.flow == f {
		e.flow = nil
	}
	b.mu.Unlock()
	if f.urlKnown() && req.Done != nil {
		req.Done(f.err)
	}
	close(f.done)
}

// finishSignIn stores the tokens the code exchange returned.
func (b *Broker) finishSignIn(req Request, d *discovery, f *flow) error {
	t := &token{
		Resource: req.URL, Issuer: d.issuer, Scope: strings.Join(f.cfg.Scopes, " "),
		TokenURL: f.cfg.Endpoint.TokenURL, AuthStyle: int(f.cfg.Endpoint.AuthStyle),
		ClientID: f.cfg.ClientID, ClientSecret: f.cfg.ClientSecret,
	}
	t.fill(f.tok, b.opt.Now())
	e := b.entry(req.ServerID)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 30*time.Second)
	defer cancel()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := b.saveToken(ctx, req.ServerID, t); err != nil {
		return fmt.Errorf("storing the tokens: %w", err)
	}
	b.setTokenLocked(e, t)
	e.retried, e.stepUp = "", nil
	e.needs.Store(false)
	return nil
}

// flowError turns how a sign-in ended into the apperr a window shows.
func (b *Broker) flowError(ctx context.Context, req Request, err error) error {
	if err == nil {
		return nil
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errTimedOut):
		mins := max(int(b.opt.FlowTimeout/time.Minute), 1)
		return apperr.Wrap(cause, apperr.MCPAuthTimeout, "sign in to %s", req.ServerName).
			WithParam("server", req.ServerName).WithParam("minutes", mins).WithAction("mcp-sign-in", req.ServerID)
	case cause != nil:
		return apperr.Wrap(cause, apperr.Canceled, "sign in to %s", req.ServerName)
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client") {
		// The registration is gone at the authorization server: register anew next time.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 10*time.Second)
		_ = b.deleteClient(dctx, req.ServerID)
		cancel()
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae
	}
	return failed(req, err.Error())
}

func failed(req Request, msg string) *apperr.Error {
	return apperr.New(apperr.MCPAuthFailed, "sign in to %s: %s", req.ServerName, msg).
		WithParam("server", req.ServerName).WithParam("message", msg).WithAction("mcp-sign-in", req.ServerID)
}

func unsupported(req Request, reason string) *apperr.Error {
	return apperr.New(apperr.MCPAuthUnsupported, "cannot sign in to %s: %s", req.ServerName, reason).
		WithParam("server", req.ServerName).WithParam("reason", reason)
}

// Cancel ends a sign-in in progress (its listener is closed when Cancel returns) and
// reports whether there was one.
func (b *Broker) Cancel(serverID string) bool {
	b.mu.Lock()
	var f *flow
	if e := b.servers[serverID]; e != nil {
		f = e.flow
	}
	b.mu.Unlock()
	if f == nil {
		return false
	}
	f.cancel(errCanceled)
	<-f.done
	return true
}

// Wait blocks until the server's latest sign-in ends and returns how it ended (nil:
// signed in). With no sign-in started it returns nil at once.
func (b *Broker) Wait(ctx context.Context, serverID string) error {
	b.mu.Lock()
	var f *flow
	if e := b.servers[serverID]; e != nil {
		f = e.last
	}
	b.mu.Unlock()
	if f == nil {
		return nil
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return apperr.Wrap(ctx.Err(), apperr.Canceled, "wait for the sign-in")
	}
}

// fetch is go-sdk's AuthorizationCodeFetcher: it hands the authorization URL to Begin
// and waits for the browser's redirect to the loopback listener.
func (f *flow) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(args.URL)
	if err != nil {
		return nil, fmt.Errorf("authorization URL: %w", err)
	}
	f.mu.Lock()
	if f.authURL != "" {
		f.mu.Unlock()
		return nil, errors.New("the authorization server asked for a second authorization round")
	}
	f.state, f.authURL = u.Query().Get("state"), args.URL
	f.mu.Unlock()
	close(f.urlc)
	select {
	case cb := <-f.codes:
		return cb.res, cb.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (f *flow) urlKnown() bool {
	select {
	case <-f.urlc:
		return true
	default:
		return false
	}
}

// ServeHTTP is the loopback listener: the browser lands here after the authorization
// page. A redirect whose state is not this sign-in's is refused and the sign-in keeps
// waiting for the real one.
func (f *flow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != CallbackPath {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	f.mu.Lock()
	want := f.state
	f.mu.Unlock()
	got := q.Get("state")
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		page(w, http.StatusBadRequest, "This sign-in link does not belong to the sign-in Cairn is waiting for.",
			"此登录链接与 Cairn 正在等待的登录不符。", "Start the sign-in again from Cairn.", "请在 Cairn 中重新开始登录。")
		return
	}
	cb := callback{res: &auth.AuthorizationResult{Code: q.Get("code"), State: got, Iss: q.Get("iss")}}
	if e := q.Get("error"); e != "" {
		msg := "the authorization server answered " + e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		cb = callback{err: errors.New(msg)}
	} else if cb.res.Code == "" {
		page(w, http.StatusBadRequest, "The authorization server sent no code.", "授权服务器没有返回授权码。",
			"Start the sign-in again from Cairn.", "请在 Cairn 中重新开始登录。")
		return
	}
	if !f.delivered.CompareAndSwap(false, true) {
		page(w, http.StatusConflict, "This sign-in has already been handled.", "此登录已处理。",
			"You can close this tab.", "您可以关闭此标签页。")
		return
	}
	f.codes <- cb
	select {
	case <-f.result:
	case <-r.Context().Done():
		return
	}
	if f.err != nil {
		page(w, http.StatusOK, "Signing in to "+f.name+" failed.", "登录 "+f.name+" 失败。",
			"Cairn shows why. You can close this tab.", "原因见 Cairn。您可以关闭此标签页。")
		return
	}
	page(w, http.StatusOK, "Signed in to "+f.name+".", "已登录 "+f.name+"。",
		"You can close this tab and return to Cairn.", "您可以关闭此标签页并返回 Cairn。")
}

// page writes the small page the browser shows after the redirect, in English and Chinese.
func page(w http.ResponseWriter, status int, title, titleZh, body, bodyZh string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	e := html.EscapeString
	fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>Cairn</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}p{color:#555}</style></head>
<body><h1>%s</h1><p>%s</p><h1 lang="zh-CN">%s</h1><p lang="zh-CN">%s</p></body></html>`, e(title), e(body), e(titleZh), e(bodyZh))
}

// --- probe, discovery, registration ---

// initializeBody is the request that makes a protected server answer with its 401
// challenge.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cairn","version":"0"}}}`

// probe asks the server, without a token, for its challenge. It returns the request and
// a 401 response for go-sdk's handler (a synthetic one when the server did not refuse:
// discovery then decides whether it takes OAuth at all) and whether it refused.
func (b *Broker) probe(ctx context.Context, req Request) (*http.Request, *http.Response, bool, error) {
	send := func(method string) (*http.Request, *http.Response, error) {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(initializeBody)
		}
		r, err := http.NewRequestWithContext(ctx, method, req.URL, body)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range req.Headers {
			if !strings.EqualFold(k, "Authorization") {
				r.Header.Set(k, v)
			}
		}
		if method == http.MethodPost {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
		} else {
			r.Header.Set("Accept", "text/event-stream")
		}
		resp, err := b.http.Do(r)
		if err != nil {
			return nil, nil, err
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		}
		resp.Body.Close()
		return r, resp, nil
	}
	method := http.MethodPost
	if req.SSE {
		method = http.MethodGet
	}
	r, resp, err := send(method)
	if err == nil && !req.SSE && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405) {
		r, resp, err = send(http.MethodGet) // an HTTP+SSE server: its endpoint takes GET
	}
	if err != nil {
		return nil, nil, false, apperr.Wrap(err, apperr.MCPUnreachable, "mcp server %s", req.ServerName).
			WithParam("server", req.ServerName).WithParam("url", req.URL).WithParam("message", err.Error())
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && resp.StatusCode < 300 {
		// The probe opened a session: end it.
		if dr, err := http.NewRequestWithContext(ctx, http.MethodDelete, req.URL, nil); err == nil {
			dr.Header.Set("Mcp-Session-Id", sid)
			if dresp, err := b.http.Do(dr); err == nil {
				dresp.Body.Close()
			}
		}
	}
	challenged := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
	hdr := http.Header{}
	if challenged {
		hdr["Www-Authenticate"] = resp.Header.Values("WWW-Authenticate")
	}
	// go-sdk's handler does nothing for a plain 403; a sign-in is what the user asked for.
	return r, &http.Response{StatusCode: http.StatusUnauthorized, Header: hdr, Body: http.NoBody, Request: r}, challenged, nil
}

// discovery is what a sign-in needs to know about the authorization server. It follows
// the same order as go-sdk's handler, so both arrive at the same issuer.
type discovery struct {
	issuer          string
	registrationURL string
	authMethods     []string
	// metadata: protected resource or authorization server metadata was found (the
	// server takes OAuth tokens); without it the 2025-03-26 default endpoints are assumed.
	metadata bool
}

func (b *Broker) discover(ctx context.Context, serverURL string, challenges []oauthex.Challenge) (*discovery, error) {
	d := &discovery{}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	root := *u
	root.Path, root.RawPath, root.RawQuery, root.Fragment = "", "", "", ""
	asURL := root.String()
	for _, c := range prmCandidates(challengeParam(challenges, "resource_metadata"), u) {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.url, c.resource, b.http)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, errors.New("the protected resource metadata names no authorization server")
		}
		d.metadata = true
		asURL = prm.AuthorizationServers[0]
		break
	}
	asm, err := auth.GetAuthServerMetadata(ctx, asURL, b.http)
	if err != nil {
		return nil, err
	}
	if asm == nil {
		// 2025-03-26: the default endpoints under the authorization server's URL.
		d.issuer, d.registrationURL = asURL, asURL+"/register"
		return d, nil
	}
	d.metadata = true
	d.issuer, d.registrationURL, d.authMethods = asm.Issuer, asm.RegistrationEndpoint, asm.TokenEndpointAuthMethodsSupported
	return d, nil
}

type prmCandidate struct{ url, resource string }

// prmCandidates are where protected resource metadata may be: the challenge's
// resource_metadata, then the well-known URL with the endpoint's path, then at the root.
func prmCandidates(fromChallenge string, u *url.URL) []prmCandidate {
	var out []prmCandidate
	if fromChallenge != "" {
		out = append(out, prmCandidate{fromChallenge, u.String()})
	}
	m := *u
	m.RawQuery, m.Fragment, m.RawPath = "", "", ""
	m.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	out = append(out, prmCandidate{m.String(), u.String()})
	m.Path = "/.well-known/oauth-protected-resource"
	r := *u
	r.Path, r.RawPath, r.RawQuery, r.Fragment = "", "", "", ""
	out = append(out, prmCandidate{m.String(), r.String()})
	return out
}

// clientFor returns the client to sign in with and the loopback listener for its
// redirect: the stored registration with the same authorization server (on its port
// when that is free), else a new dynamic registration, which is stored.
func (b *Broker) clientFor(ctx context.Context, req Request, d *discovery) (*client, net.Listener, error) {
	cl, err := b.loadClient(req.ServerID)
	if err != nil {
		b.log.Warn("mcp oauth: ignoring an unreadable client registration", "server", req.ServerID, "err", err)
		cl = nil
	}
	now := b.opt.Now()
	if cl != nil && sameIssuer(cl.Issuer, d.issuer) && (cl.SecretExpiresAt == 0 || now.Before(time.UnixMilli(cl.SecretExpiresAt))) {
		if ru, err := url.Parse(cl.RedirectURI); err == nil && ru.Hostname() == "127.0.0.1" {
			if ln, err := net.Listen("tcp", ru.Host); err == nil {
				return cl, ln, nil
			}
		}
		if d.registrationURL == "" {
			// Loopback redirects may use any port (RFC 8252 §7.3).
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, nil, failed(req, "cannot listen on 127.0.0.1: "+err.Error())
			}
			return cl, ln, nil
		}
	}
	if d.registrationURL == "" {
		return nil, nil, unsupported(req, "the authorization server does not support dynamic client registration")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, failed(req, "cannot listen on 127.0.0.1: "+err.Error())
	}
	redirect := "http://" + ln.Addr().String() + CallbackPath
	meta := &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirect},
		TokenEndpointAuthMethod: registrationAuthMethod(d.authMethods),
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		ClientName:              b.opt.ClientName,
		SoftwareID:              "cairn",
		SoftwareVersion:         b.opt.Version,
		ApplicationType:         "native",
	}
	reg, err := oauthex.RegisterClient(ctx, d.registrationURL, meta, b.http)
	if err != nil {
		ln.Close()
		if !d.metadata {
			// Only the 2025-03-26 default endpoints were left to try, and they are not there.
			return nil, nil, unsupported(req, "the server publishes no OAuth metadata and has no client registration endpoint")
		}
		return nil, nil, failed(req, "registering Cairn with the authorization server: "+err.Error())
	}
	cl = &client{
		Issuer: d.issuer, ClientID: reg.ClientID, ClientSecret: reg.ClientSecret, RedirectURI: redirect,
		AuthMethod: reg.TokenEndpointAuthMethod, RegisteredAt: now.UnixMilli(),
	}
	if !reg.ClientSecretExpiresAt.IsZero() {
		cl.SecretExpiresAt = reg.ClientSecretExpiresAt.UnixMilli()
	}
	if err := b.saveClient(ctx, req.ServerID, cl); err != nil {
		ln.Close()
		return nil, nil, failed(req, "storing the client registration: "+err.Error())
	}
	return cl, ln, nil
}

// registrationAuthMethod asks for the token endpoint authentication go-sdk will use with
// the registered client (it prefers client_secret_post, then client_secret_basic); a
// server that takes only "none" gets a public client.
func registrationAuthMethod(supported []string) string {
	for _, m := range []string{"client_secret_post", "client_secret_basic", "none"} {
		for _, s := range supported {
			if s == m {
				return m
			}
		}
	}
	return "" // the RFC 7591 default (client_secret_basic)
}

func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}
