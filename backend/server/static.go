package server

import (
	"bytes"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// contentType pins the types a Vite build produces, so the answer does not depend on the
// host's /etc/mime.types.
func contentType(name string) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".json", ".map":
		return "application/json"
	case ".webmanifest":
		return "application/manifest+json"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".avif":
		return "image/avif"
	case ".ico":
		return "image/x-icon"
	case ".woff":
		return "font/woff"
	case ".woff2":
		return "font/woff2"
	case ".ttf":
		return "font/ttf"
	case ".otf":
		return "font/otf"
	case ".wasm":
		return "application/wasm"
	case ".txt":
		return "text/plain; charset=utf-8"
	default:
		return mime.TypeByExtension(ext)
	}
}

// serveStatic serves the built frontend. Paths that name no file fall back to index.html
// (client-side routes), except asset-looking paths not asked for as a page, which get 404
// rather than HTML posing as a script.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if s.cfg.Assets == nil {
		writePage(w, http.StatusServiceUnavailable, pageNotBuilt)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if fs.ValidPath(name) && s.serveFile(w, r, name) {
		return
	}
	if name != "index.html" && path.Ext(name) != "" && !strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.NotFound(w, r)
		return
	}
	if !s.serveFile(w, r, "index.html") {
		writePage(w, http.StatusServiceUnavailable, pageNotBuilt)
	}
}

// serveFile answers with one regular file of the assets; false when there is none.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name string) bool {
	f, err := s.cfg.Assets.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(f)
		if err != nil {
			s.log.Warn("serve: read asset", "name", name, "err", err)
			return false
		}
		rs = bytes.NewReader(b)
	}
	h := w.Header()
	if ct := contentType(name); ct != "" {
		h.Set("Content-Type", ct)
	}
	switch {
	case name == "index.html":
		h.Set("Cache-Control", "no-cache")
	case strings.HasPrefix(name, "assets/"):
		// Vite puts content-hashed files here: a changed file has a new name.
		h.Set("Cache-Control", "private, max-age=31536000, immutable")
	default:
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, name, st.ModTime(), rs)
	return true
}

// FrontendBuilt reports whether Assets holds index.html, so `cairn serve` can warn at start.
func (s *Server) FrontendBuilt() bool {
	if s.cfg.Assets == nil {
		return false
	}
	st, err := fs.Stat(s.cfg.Assets, "index.html")
	return err == nil && st.Mode().IsRegular()
}
