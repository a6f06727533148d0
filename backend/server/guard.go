package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// CookieName carries the token for a browser tab after it opened the ?token= address.
const CookieName = "cairn_token"

// serveHTTP is the front door: Host, Origin and token checks, then routing.
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
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Query().Has("token") {
		s.redeemQueryToken(w, r)
		return
	}
	if !s.authorized(r) {
		s.refuse(w, r, apperr.New(apperr.Unauthorized, "missing or wrong token"), pageUnauthorized)
		return
	}
	s.route(w, r)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if !isAPIPath(p) {
		s.serveStatic(w, r)
		return
	}
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

// authorized accepts `Authorization: Bearer TOKEN` or the cookie.
func (s *Server) authorized(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		const prefix = "bearer "
		if len(h) > len(prefix) && strings.EqualFold(h[:len(prefix)], prefix) &&
			s.tokenOK(strings.TrimSpace(h[len(prefix):])) {
			return true
		}
	}
	if c, err := r.Cookie(CookieName); err == nil && s.tokenOK(c.Value) {
		return true
	}
	return false
}

// redeemQueryToken turns ?token=TOKEN into the cookie and redirects to the same address
// without it, so the token leaves the address bar and the history.
func (s *Server) redeemQueryToken(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !s.tokenOK(q.Get("token")) {
		s.refuse(w, r, apperr.New(apperr.Unauthorized, "wrong token in the address"), pageUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     CookieName,
		Value:    s.cfg.Token,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	q.Del("token")
	// Clean the path so "//evil.example/" cannot become a protocol-relative redirect.
	p := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") && p != "/" {
		p += "/"
	}
	loc := (&url.URL{Path: p, RawQuery: q.Encode()}).String()
	if strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
		loc = "/"
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusSeeOther)
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
