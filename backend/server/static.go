package server

import (
	"bytes"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
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
// rather than HTML posing as a script. The page carries its snapshots only withData.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request, withData bool) {
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
	if name != "index.html" && fs.ValidPath(name) && s.serveFile(w, r, name) {
		return
	}
	if name != "index.html" && path.Ext(name) != "" && !strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.NotFound(w, r)
		return
	}
	if !s.servePage(w, r, withData) && !s.serveFile(w, r, "index.html") {
		writePage(w, http.StatusServiceUnavailable, pageNotBuilt)
	}
}

// serveFile answers with one regular file of the assets; false when there is none. A file
// with a gzip sibling (name + ".gz", written by the frontend build) is answered with that
// sibling when the client accepts gzip: the browser then reads a third of the bytes.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name string) bool {
	f, st, ok := openRegular(s.cfg.Assets, name)
	if !ok {
		return false
	}
	defer f.Close()
	encoding, vary := "", false
	if gz, gzst, ok := openRegular(s.cfg.Assets, name+".gz"); ok {
		defer gz.Close()
		vary = true
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			f, st, encoding = gz, gzst, "gzip"
		}
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(f)
		if err != nil {
			s.log.Warn("serve: read asset", "name", st.Name(), "err", err)
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
	if vary {
		h.Add("Vary", "Accept-Encoding")
	}
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	http.ServeContent(w, r, name, st.ModTime(), rs)
	return true
}

// openRegular opens name if it is a regular file of fsys.
func openRegular(fsys fs.FS, name string) (fs.File, fs.FileInfo, bool) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, false
	}
	return f, st, true
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip: listed (or "*")
// without q=0.
func acceptsGzip(header string) bool {
	gzip, star := -1.0, -1.0
	for _, v := range weightedValues(header) {
		switch strings.ToLower(v.value) {
		case "gzip", "x-gzip":
			gzip = v.q
		case "*":
			star = v.q
		}
	}
	if gzip >= 0 {
		return gzip > 0
	}
	return star > 0
}

// weighted is one value of an Accept-style header with its quality (1 when not given).
type weighted struct {
	value string
	q     float64
}

// weightedValues splits an Accept-style header (Accept-Encoding, Accept-Language) into
// its values and their q parameters, in header order; empty values are left out.
func weightedValues(header string) []weighted {
	var out []weighted
	for _, part := range strings.Split(header, ",") {
		value, params, _ := strings.Cut(part, ";")
		value = strings.TrimSpace(value)
		if value == "" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		out = append(out, weighted{value, q})
	}
	return out
}

// FrontendBuilt reports whether Assets holds index.html, so `cairn serve` can warn at start.
func (s *Server) FrontendBuilt() bool {
	if s.cfg.Assets == nil {
		return false
	}
	st, err := fs.Stat(s.cfg.Assets, "index.html")
	return err == nil && st.Mode().IsRegular()
}
