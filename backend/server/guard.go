package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// serveHTTP is the front door: Host and Origin checks, then the token for everything
// under /api (the bearer header only: a cookie would reach every server on this host, since
// browsers send a host's cookies to all of its ports). Pages and the built files need no
// token; the page carries this moment's snapshots only for a request that shows the token
// (pageAccess).
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if !s.hostAllowed(r, r.Host) {
		s.refuse(w, r, apperr.New(apperr.OriginRejected, "Host %q is not this server", r.Host), pageForeignHost)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(r, o) {
		s.refuse(w, r, apperr.New(apperr.OriginRejected, "Origin %q is not this server", o), pageForeignHost)
		return
	}
	if !isAPIPath(r.URL.Path) {
		withData, ok := s.pageAccess(r)
		if !ok {
			s.refuse(w, r, apperr.New(apperr.Unauthorized, "wrong token in the address"), pageUnauthorized)
			return
		}
		s.serveStatic(w, r, withData)
		return
	}
	if !s.authorized(r) {
		s.refuse(w, r, apperr.New(apperr.Unauthorized, "missing or wrong token"), pageUnauthorized)
		return
	}
	s.route(w, r)
}

// pageAccess decides what a page request gets: the snapshots (withData) when it shows the
// token, in the address the user opened (?token=, which the page then moves into its
// session storage and out of the address) or as the bearer header; the page without any
// data otherwise, so that a reload of a tab whose address no longer holds the token still
// starts the app, which then authenticates its calls from session storage. A wrong token
// in the address is refused (ok false) rather than silently ignored.
func (s *Server) pageAccess(r *http.Request) (withData, ok bool) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if q := r.URL.Query(); q.Has("token") {
			if !s.tokenOK(q.Get("token")) {
				return false, false
			}
			return true, true
		}
	}
	return s.authorized(r), true
}

// route answers an authorized request under /api.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch p {
	case "/api/events":
		if !allowMethods(w, r, http.MethodGet) {
			return
		}
		s.serveEvents(w, r)
	case "/api/health":
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		writeJSONBytes(w, http.StatusOK, []byte(`{"ok":true}`))
	case debugStatsPath:
		s.serveDebugStats(w, r)
	default:
		name := strings.TrimPrefix(p, "/api/")
		if p == "/api" || name == "" || strings.Contains(name, "/") {
			s.writeError(w, r, apperr.New(apperr.MethodUnknown, "no API route %q", p).WithParam("method", name))
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSONError(w, http.StatusMethodNotAllowed,
				badBody("%s %s: bound methods are called with POST", r.Method, p))
			return
		}
		s.serveCall(w, r, name)
	}
}

// allowMethods answers 405 unless r uses one of methods.
func allowMethods(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	msg := r.Method + " " + r.URL.Path + ": use " + strings.Join(methods, " or ")
	writeJSONError(w, http.StatusMethodNotAllowed, badBody("%s", msg))
	return false
}

// tokenOK compares in constant time; hashing first also hides the token's length.
func (s *Server) tokenOK(tok string) bool {
	if tok == "" {
		return false
	}
	sum := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) == 1
}

// authorized accepts `Authorization: Bearer TOKEN`, the only way a call carries the token.
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	return len(h) > len(prefix) && strings.EqualFold(h[:len(prefix)], prefix) &&
		s.tokenOK(strings.TrimSpace(h[len(prefix):]))
}

// hostAllowed is the DNS-rebinding check: hostport must name this server by a loopback
// name, the address the connection arrived on, or (AllowRemote) the configured host, with
// the port the connection arrived on.
func (s *Server) hostAllowed(r *http.Request, hostport string) bool {
	if hostport == "" {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, "80"
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	localIP, localPort := "", ""
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ta, ok := la.(*net.TCPAddr); ok {
			localPort = strconv.Itoa(ta.Port)
			if !ta.IP.IsUnspecified() {
				localIP = ta.IP.String()
			}
		}
	}
	if localPort == "" || port != localPort {
		return false
	}
	switch host {
	case "localhost", "127.0.0.1", "::1":
		return true
	case "":
		return false
	case localIP:
		return true
	}
	return s.cfg.AllowRemote && host == s.remoteHost
}

// originAllowed requires a browser request to come from a page of this server.
func (s *Server) originAllowed(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	return s.hostAllowed(r, u.Host)
}
