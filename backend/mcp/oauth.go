package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/oauth"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// SignIn is the OAuth sign-in of remote servers (oauth.Broker implements it): tokens
// from the keyring on every request, renewed before they expire or after a 401, and the
// browser sign-in when there is no token that works.
type SignIn interface {
	Handler(serverID, url string) *oauth.Handler
	Begin(ctx context.Context, req oauth.Request) (oauth.Started, error)
	Cancel(serverID string) bool
	Wait(ctx context.Context, serverID string) error
	SignOut(ctx context.Context, serverID string) error
	Forget(ctx context.Context, serverID string) error
	Status(serverID, url string) oauth.Status
	NeedsSignIn(serverID string) bool
	OnChange(func(serverID, note string))
}

// SignInStart is what AuthorizeMCPServer returns: the page to open, and whether Cairn
// opened it in the system browser already.
type SignInStart struct {
	ServerID string `json:"serverId"`
	AuthURL  string `json:"authUrl"`
	// RedirectURI is the loopback listener (http://127.0.0.1:<port>/callback).
	RedirectURI string `json:"redirectUri"`
	// ExpiresAt is when the listener gives up waiting (unix ms).
	ExpiresAt int64 `json:"expiresAt"`
	Opened    bool  `json:"opened"`
}

// usesOAuth says whether a server's requests go through the sign-in: remote servers
// without an Authorization header of their own.
func (m *Manager) usesOAuth(cfg Server) bool {
	if m.signIn == nil || m.oauth != nil || (cfg.Transport != TransportHTTP && cfg.Transport != TransportSSE) {
		return false
	}
	for _, h := range cfg.Headers {
		if strings.EqualFold(h.Name, "Authorization") {
			return false
		}
	}
	return true
}

func (m *Manager) oauthFor(s Server) auth.OAuthHandler {
	if m.oauth != nil {
		return m.oauth(s)
	}
	if m.usesOAuth(s) {
		return m.signIn.Handler(s.ID, s.URL)
	}
	return nil
}

// sseTransport is the round tripper of an HTTP+SSE session: with the sign-in's bearer
// token when the server uses OAuth (go-sdk's SSE transport has no OAuth hook).
func (m *Manager) sseTransport(cfg Server) http.RoundTripper {
	if m.usesOAuth(cfg) {
		return m.signIn.Handler(cfg.ID, cfg.URL).Wrap(m.http)
	}
	return m.http
}

// needsSignIn says whether a failure is one a sign-in fixes.
func (m *Manager) needsSignIn(cfg Server, err error) bool {
	if errors.Is(err, oauth.ErrSignInRequired) {
		return true
	}
	return m.usesOAuth(cfg) && m.signIn.NeedsSignIn(cfg.ID)
}

// authRequired is the error of a server that waits for the user to sign in; its action
// starts the sign-in (AuthorizeMCPServer with the target id).
func authRequired(cfg Server, cause error) *apperr.Error {
	ae := apperr.Wrap(cause, apperr.MCPAuthRequired, "mcp server %s needs a sign-in", cfg.Name).
		WithParam("server", cfg.Name).WithParam("serverId", cfg.ID)
	if cfg.ID == "" {
		return ae // an unsaved server (Test): it can be signed in once it is saved
	}
	return ae.WithAction("mcp-sign-in", cfg.ID)
}

// signInLost handles a refusal during a live session (the token expired and could not
// be renewed): the server goes to "needs sign-in" and the caller gets that error. ok is
// false for every other failure.
func (m *Manager) signInLost(s *server, err error) (ae *apperr.Error, ok bool) {
	if !errors.Is(err, oauth.ErrSignInRequired) {
		return nil, false
	}
	ae = authRequired(s.config(), err)
	s.log.Eventf("the server needs a sign-in")
	s.stop(StateNeedsSignIn, ae)
	m.publishServer(s.id)
	return ae, true
}

// oauthStatus is the sign-in part of a server's status (nil when it has none).
func (m *Manager) oauthStatus(cfg Server) *oauth.Status {
	if !m.usesOAuth(cfg) {
		return nil
	}
	st := m.signIn.Status(cfg.ID, cfg.URL)
	if !st.SignedIn && !st.Pending {
		return nil
	}
	return &st
}

// SignIn starts the OAuth sign-in of a remote server (AuthorizeMCPServer): it discovers
// the authorization server, registers Cairn there if needed and returns the page to
// open; openBrowser opens it in the system browser too. When the browser comes back to
// the loopback listener the tokens go to the keyring and the server reconnects; its
// status is published on topic mcp all along (Status.OAuth.Pending, then ready or
// needs-sign-in with the reason).
func (m *Manager) SignIn(ctx context.Context, id string, openBrowser bool) (SignInStart, error) {
	s, err := m.get(id)
	if err != nil {
		return SignInStart{}, err
	}
	cfg := s.config()
	if err := m.canSignIn(cfg); err != nil {
		return SignInStart{}, err
	}
	rc, err := m.resolve(cfg)
	if err != nil {
		return SignInStart{}, err
	}
	st, err := m.signIn.Begin(ctx, oauth.Request{
		ServerID: id, ServerName: cfg.Name, URL: cfg.URL, SSE: cfg.Transport == TransportSSE,
		Headers: rc.headers, Open: openBrowser,
		Done: func(err error) { m.signInDone(id, err) },
	})
	if err != nil {
		s.log.Eventf("sign-in failed: %s", errOf(err).Message)
		return SignInStart{}, err
	}
	s.log.Eventf("sign-in started: waiting for the browser (until %s)", st.ExpiresAt.Format(time.TimeOnly))
	m.publishServer(id)
	return SignInStart{ServerID: id, AuthURL: st.AuthURL, RedirectURI: st.RedirectURI,
		ExpiresAt: st.ExpiresAt.UnixMilli(), Opened: st.Opened}, nil
}

func (m *Manager) canSignIn(cfg Server) error {
	no := func(reason string) error {
		return apperr.New(apperr.MCPAuthUnsupported, "cannot sign in to %s: %s", cfg.Name, reason).
			WithParam("server", cfg.Name).WithParam("reason", reason)
	}
	switch {
	case m.signIn == nil || m.oauth != nil:
		return no("sign-in is not available in this Cairn")
	case cfg.Transport != TransportHTTP && cfg.Transport != TransportSSE:
		return no("only remote (HTTP) servers sign in")
	case !m.usesOAuth(cfg):
		return no("the server has an Authorization header of its own; remove it to sign in")
	}
	return nil
}

// signInDone runs when a started sign-in ends: reconnect with the new token, or show why
// it did not work.
func (m *Manager) signInDone(id string, err error) {
	if m.ctx.Err() != nil {
		return
	}
	s, gerr := m.get(id)
	if gerr != nil {
		return
	}
	s.mu.Lock()
	dead := s.dead
	s.mu.Unlock()
	if dead {
		return // deleted while the sign-in waited
	}
	cfg := s.config()
	if err == nil {
		// Every request reads the token afresh: a live connection simply goes on with it,
		// a connect in flight retries if it was refused before the token arrived.
		s.log.Eventf("signed in")
		s.mu.Lock()
		s.signIns++
		s.restarts = 0
		if s.retry != nil {
			s.retry.Stop()
			s.retry = nil
		}
		if s.conn == nil && s.connecting == nil && s.state != StateDisabled {
			s.setStateLocked(StateIdle, nil)
		}
		s.mu.Unlock()
		m.publishServer(id)
		if cfg.Enabled {
			m.requestRefresh(id)
		}
		return
	}
	ae := errOf(err)
	s.log.Eventf("sign-in ended: %s", ae.Message)
	if ae.Code == apperr.Canceled {
		ae = authRequired(cfg, err)
	}
	s.mu.Lock()
	if s.conn == nil && s.connecting == nil && cfg.Enabled {
		s.setStateLocked(StateNeedsSignIn, ae)
	}
	s.mu.Unlock()
	m.publishServer(id)
}

// CancelSignIn stops a sign-in that waits for the browser (its listener closes).
func (m *Manager) CancelSignIn(ctx context.Context, id string) (ServerView, error) {
	if _, err := m.get(id); err != nil {
		return ServerView{}, err
	}
	if m.signIn != nil {
		m.signIn.Cancel(id)
	}
	return m.view(ctx, id)
}

// WaitSignIn blocks until the server's sign-in ends (the CLI's `mcp login`) and returns
// how it ended: nil when signed in.
func (m *Manager) WaitSignIn(ctx context.Context, id string) error {
	if _, err := m.get(id); err != nil {
		return err
	}
	if m.signIn == nil {
		return nil
	}
	return m.signIn.Wait(ctx, id)
}

// SignOut deletes a server's tokens from the keyring and disconnects it; it needs a new
// sign-in before it is used again.
func (m *Manager) SignOut(ctx context.Context, id string) (ServerView, error) {
	s, err := m.get(id)
	if err != nil {
		return ServerView{}, err
	}
	cfg := s.config()
	if m.signIn == nil {
		return m.view(ctx, id)
	}
	if err := m.signIn.SignOut(ctx, id); err != nil {
		return ServerView{}, err
	}
	s.log.Eventf("signed out: the tokens were deleted")
	if cfg.Enabled && m.usesOAuth(cfg) {
		s.stop(StateNeedsSignIn, authRequired(cfg, nil))
	}
	m.publishServer(id)
	return m.view(ctx, id)
}

// forgetSignIn removes a server's stored sign-in (deleted, or moved to another URL).
func (m *Manager) forgetSignIn(ctx context.Context, id string) {
	if m.signIn == nil {
		return
	}
	if err := m.signIn.Forget(ctx, id); err != nil {
		m.log.Warn("mcp: cannot delete the stored sign-in", "server", id, "err", err)
	}
}

// signInNote logs what the sign-in did on its own (a token renewed or refused) and
// publishes the server's new status.
func (m *Manager) signInNote(id, note string) {
	s, err := m.get(id)
	if err != nil {
		return
	}
	s.log.Eventf("%s", note)
	m.publishServer(id)
}
