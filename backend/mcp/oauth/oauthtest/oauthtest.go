// Package oauthtest is a local OAuth 2.1 authorization server with an MCP server it
// protects, for tests without network: protected resource and authorization server
// metadata, dynamic client registration, an /authorize that approves at once (it
// redirects straight to the redirect URI with a code), a /token that checks the PKCE
// verifier and issues rotating access and refresh tokens, and a go-sdk MCP server over
// Streamable HTTP behind a bearer check.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Scope is what the resource requires.
const Scope = "mcp:tools"

// Server is the authorization server and the protected MCP server on one loopback port.
type Server struct {
	// URL is the issuer; MCPURL the protected Streamable HTTP endpoint (URL + "/mcp"),
	// SSEURL the same server over the older HTTP+SSE transport (URL + "/sse").
	URL    string
	MCPURL string
	SSEURL string

	srv *httptest.Server

	mu      sync.Mutex
	opt     Options
	clients map[string]*client
	codes   map[string]*grant
	access  map[string]*issued
	refresh map[string]*issued
	seq     int
	counts  Counts
	secrets []string // every token and client secret handed out
}

// Options shape the server; zero values are the defaults.
type Options struct {
	// ExpiresIn is the access token lifetime it announces (1 hour).
	ExpiresIn time.Duration
	// NoRegistration leaves out the registration endpoint.
	NoRegistration bool
}

// Counts are how often each endpoint did its work.
type Counts struct {
	Registrations  int
	Authorizations int
	Exchanges      int // authorization codes exchanged
	Refreshes      int // refresh tokens redeemed
	Refused        int // token requests refused
}

type client struct {
	id, secret string
	redirects  []string
}

type grant struct {
	client, redirect, challenge, resource, scope string
}

type issued struct {
	n      int
	client string
	scope  string
	exp    time.Time
}

// New starts the server; it is closed with the test.
func New(t testing.TB, opt Options) *Server {
	t.Helper()
	if opt.ExpiresIn == 0 {
		opt.ExpiresIn = time.Hour
	}
	s := &Server{opt: opt, clients: map[string]*client{}, codes: map[string]*grant{},
		access: map[string]*issued{}, refresh: map[string]*issued{}}
	mux := http.NewServeMux()
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.MCPURL, s.SSEURL = s.URL+"/mcp", s.URL+"/sse"
	mux.HandleFunc("/.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("/register", s.register)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	protect := func(path string, h http.Handler) {
		prm := "/.well-known/oauth-protected-resource" + path
		mux.Handle(prm, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: s.URL + path, AuthorizationServers: []string{s.URL}, ScopesSupported: []string{Scope},
		}))
		mux.Handle(path, auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL: s.URL + prm, Scopes: []string{Scope},
		})(h))
	}
	newServer := func(*http.Request) *mcp.Server { return newMCPServer() }
	protect("/mcp", mcp.NewStreamableHTTPHandler(newServer, nil))
	protect("/sse", mcp.NewSSEHandler(newServer, nil))
	return s
}

// newMCPServer has one tool, whoami, that says which access token the call came with
// (its sequence number, never the token).
func newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "says which token called", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			n := "?"
			if req.Extra != nil && req.Extra.TokenInfo != nil { // (the SSE handler passes none)
				ti := req.Extra.TokenInfo
				n = fmt.Sprint(ti.Extra["n"])
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token #" + n}}}, nil, nil
		})
	return s
}

// Counts returns how often each endpoint worked so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// Issued is how many tokens (access and refresh pairs) were issued so far: the number
// whoami reports for the latest.
func (s *Server) Issued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// RevokeAccess makes every access token invalid (the refresh tokens still work), as if
// they had expired on the server's clock.
func (s *Server) RevokeAccess() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

// RevokeAll makes every access and refresh token invalid: renewal fails.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
	clear(s.refresh)
}

// Secrets lists every token and client secret the server handed out, for tests that
// make sure none of them is written where it must not be.
func (s *Server) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.secrets)
}

// Clients is how many clients are registered.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

func (s *Server) verify(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.access[tok]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: strings.Fields(it.scope), Expiration: it.exp, UserID: "alice",
		Extra: map[string]any{"n": it.n}}, nil
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	m := map[string]any{
		"issuer":                                         s.URL,
		"authorization_endpoint":                         s.URL + "/authorize",
		"token_endpoint":                                 s.URL + "/token",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_post", "none"},
		"scopes_supported":                               []string{Scope, "offline_access"},
		"authorization_response_iss_parameter_supported": true,
	}
	if !s.opt.NoRegistration {
		m["registration_endpoint"] = s.URL + "/register"
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&meta) != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.mu.Lock()
	s.counts.Registrations++
	c := &client{id: "client-" + rand.Text()[:8], redirects: meta.RedirectURIs}
	if meta.TokenEndpointAuthMethod != "none" {
		c.secret = "client-secret-" + rand.Text()
		s.secrets = append(s.secrets, c.secret)
	}
	s.clients[c.id] = c
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": c.id, "client_secret": c.secret, "redirect_uris": meta.RedirectURIs,
		"token_endpoint_auth_method": meta.TokenEndpointAuthMethod, "grant_types": meta.GrantTypes,
	})
}

// authorize approves at once: the browser goes straight back to the redirect URI.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case c == nil:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case !loopbackMatch(c.redirects, redirect):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirect)
		params.Set("state", q.Get("state"))
		params.Set("iss", s.URL)
		u.RawQuery = params.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("state") == "" || (q.Get("resource") != s.MCPURL && q.Get("resource") != s.SSEURL) {
		back(url.Values{"error": {"invalid_request"}})
		return
	}
	code := "code-" + rand.Text()
	s.mu.Lock()
	s.counts.Authorizations++
	s.codes[code] = &grant{client: c.id, redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
	s.mu.Unlock()
	back(url.Values{"code": {code}})
}

// loopbackMatch accepts a registered redirect URI, with any port for 127.0.0.1
// (RFC 8252 §7.3).
func loopbackMatch(registered []string, got string) bool {
	if slices.Contains(registered, got) {
		return true
	}
	g, err := url.Parse(got)
	if err != nil || g.Hostname() != "127.0.0.1" {
		return false
	}
	for _, r := range registered {
		if u, err := url.Parse(r); err == nil && u.Hostname() == "127.0.0.1" && u.Path == g.Path {
			return true
		}
	}
	return false
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	refuse := func(code string) {
		s.counts.Refused++
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": code})
	}
	c := s.clients[id]
	if c == nil || c.secret != secret {
		refuse("invalid_client")
		return
	}
	var scope string
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		g := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if g == nil || g.client != id || g.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			refuse("invalid_grant")
			return
		}
		s.counts.Exchanges++
		scope = g.scope
	case "refresh_token":
		it := s.refresh[r.PostForm.Get("refresh_token")]
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotation: each is good once
		if it == nil || it.client != id {
			refuse("invalid_grant")
			return
		}
		for tok, a := range s.access {
			if a.n == it.n {
				delete(s.access, tok) // the old access token ends with its refresh token
			}
		}
		s.counts.Refreshes++
		scope = it.scope
	default:
		refuse("unsupported_grant_type")
		return
	}
	s.seq++
	it := &issued{n: s.seq, client: id, scope: scope, exp: time.Now().Add(s.opt.ExpiresIn)}
	access, refresh := fmt.Sprintf("access-%d-%s", s.seq, rand.Text()), fmt.Sprintf("refresh-%d-%s", s.seq, rand.Text())
	s.access[access], s.refresh[refresh] = it, it
	s.secrets = append(s.secrets, access, refresh)
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": int(s.opt.ExpiresIn / time.Second),
		"refresh_token": refresh, "scope": scope,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
