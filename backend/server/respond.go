package server

import (
	"encoding/json"
	"html"
	"log/slog"
	"net/http"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// contentSecurityPolicy allows the built frontend (own scripts, inline styles from the
// component library, data: and blob: images) and nothing else: no framing, no foreign
// connections, no image from another host (a remote image in an answer is fetched by the
// backend when the user asks, and shown as a data: URL). frontend/index.html carries the
// same policy as a <meta> for a page served without these headers.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

func setSecurityHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// statusFor maps an error code to the HTTP status of the response that carries it. The body
// is the apperr JSON either way; the status is for tools (curl, proxies, logs) and says
// whose fault it was: the request's (4xx, logged at info), a provider's or an MCP
// server's (502, warn) or Cairn's (500, error).
func statusFor(code apperr.Code) int {
	switch code {
	case apperr.Unauthorized:
		return http.StatusUnauthorized
	case apperr.OriginRejected:
		return http.StatusForbidden
	case apperr.BodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case apperr.NotFound, apperr.MethodUnknown:
		return http.StatusNotFound
	case apperr.MCPCommandNotFound, apperr.ModelNotFound:
		return http.StatusBadGateway // the server's program or the provider's model is missing, not what was asked for
	case apperr.InvalidArgument, apperr.BadRequestBody, apperr.SecretEmpty, apperr.RemoteNotAllowed,
		apperr.ProviderKeyHostMoved, apperr.MCPImportTooMany:
		return http.StatusBadRequest
	case apperr.SessionBusy, apperr.NoProvider, apperr.ProviderKeyMissing, apperr.ApprovalAlreadyDecided,
		apperr.ApprovalInterrupted, apperr.ApprovalRuleUnavailable, apperr.ApprovalResumeUnavailable,
		apperr.MCPServerDisabled, apperr.TavilyKeyRequired, apperr.SearchKeyRequired, apperr.SearchEndpointRequired, apperr.FaviconsOff:
		return http.StatusConflict
	case apperr.SearchKeyInvalid, apperr.SearchBadResponse:
		return http.StatusBadGateway // the search provider refused the key or answered nonsense
	}
	// The naming of the catalogue, which codes added later follow too.
	c := string(code)
	switch {
	case strings.HasSuffix(c, "_not_found"):
		return http.StatusNotFound
	case strings.HasSuffix(c, "_exists"):
		return http.StatusConflict
	case strings.HasPrefix(c, "setting_"), strings.HasSuffix(c, "_invalid"), strings.HasPrefix(c, "invalid_"),
		strings.Contains(c, "_invalid_"), strings.HasSuffix(c, "_unknown"), strings.HasPrefix(c, "doc_"):
		return http.StatusBadRequest // doc_*: the document given cannot be read
	case strings.HasPrefix(c, "model_"), strings.HasPrefix(c, "mcp_"), strings.HasPrefix(c, "image_"),
		strings.HasPrefix(c, "fetch_"), strings.HasPrefix(c, "search_"), strings.HasPrefix(c, "searxng_"),
		strings.HasPrefix(c, "parse_link_"):
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

func isAPIPath(p string) bool { return p == "/api" || strings.HasPrefix(p, "/api/") }

// writeError sends {"error": <apperr>} with the mapped status and returns that status.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) int {
	ae := s.cfg.Redact.Error(apperr.From(err))
	status := statusFor(ae.Code)
	level := slog.LevelInfo
	switch {
	case status == http.StatusBadGateway:
		level = slog.LevelWarn
	case status >= 500:
		level = slog.LevelError
	}
	s.log.Log(r.Context(), level, "serve: request failed", "path", r.URL.Path, "status", status, "code", ae.Code, "err", ae.Message)
	writeJSONError(w, status, ae)
	return status
}

// writeJSONError sends {"error": <apperr>} with the given status.
func writeJSONError(w http.ResponseWriter, status int, ae *apperr.Error) {
	b, err := json.Marshal(struct {
		Error *apperr.Error `json:"error"`
	}{ae})
	if err != nil {
		// Params that do not encode: keep the code, key and message.
		stripped := *ae
		stripped.Params = nil
		b, _ = json.Marshal(struct {
			Error *apperr.Error `json:"error"`
		}{&stripped})
	}
	writeJSONBytes(w, status, b)
}

func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// refuse answers a request the guard turned away: apperr JSON under /api, a small page
// elsewhere (a browser tab shows it).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, ae *apperr.Error, page string) {
	if ae.Code == apperr.Unauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
	}
	if isAPIPath(r.URL.Path) {
		s.writeError(w, r, ae)
		return
	}
	writePage(w, statusFor(ae.Code), page)
}

// writePage sends a minimal HTML page; text is escaped.
func writePage(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Cairn</title></head>" +
		"<body><p>" + html.EscapeString(text) + "</p></body></html>\n"))
}

const (
	pageUnauthorized = "Cairn: not authorized. Open the address `cairn serve` printed, including its ?token=."
	pageForeignHost  = "Cairn: request refused (foreign Host or Origin)."
	pageNotBuilt     = "Cairn: frontend not built: run make build"
)
