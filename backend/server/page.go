package server

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"
)

// pageDataID is the id of the JSON block index.html carries (frontend/src/api/page.ts).
const pageDataID = "cairn-page-data"

// languageSetting is the setting that names the window's language ("system" or a locale).
const languageSetting = "general.language"

// A pageCall is one of the facade calls a window makes before its first frame, whose
// results index.html carries, taken when the page is served, so that the first frame needs
// no request: by default the settings (language, theme). A call is a method's name, followed
// by its arguments as a JSON array when it has any (`ListSessions[""]`), the key under
// which frontend/src/api/page.ts looks it up. Only snapshots the frontend is shown anyway
// belong here, never one that holds a secret.
//
// A browser tab on `cairn serve` loads every other store only once its event stream said
// hello (frontend/src/api/store.ts), which the page cannot answer for; the desktop window
// has no stream to wait for and takes more (DesktopPageCalls).
type pageCall struct {
	key string
	m   *method
	in  []reflect.Value // decoded once, passed to every call: keep page calls' arguments plain values
}

// resolvePageCalls turns cfg.PageCalls (default: GetSettings) into methods and decoded
// arguments, once; a call the facade cannot answer that way is left out, with a warning.
func (s *Server) resolvePageCalls() []pageCall {
	keys := s.cfg.PageCalls
	if keys == nil {
		keys = []string{"GetSettings"}
	}
	var out []pageCall
	for _, key := range keys {
		name, args := key, ""
		if i := strings.IndexByte(key, '['); i >= 0 {
			name, args = key[:i], key[i:]
		}
		m, ok := s.methods[name]
		if !ok || !m.hasResult {
			continue
		}
		in, bad := m.decodeArgs([]byte(args)) // "" is no arguments; the count is checked
		if bad != nil {
			s.log.Warn("serve: page call left out", "call", key, "err", bad)
			continue
		}
		out = append(out, pageCall{key: key, m: m, in: in})
	}
	return out
}

// DesktopPageCalls are the desktop window's page calls: the settings; the providers, so
// that Home's first frame already offers the right action (add a provider, or start a
// chat); the conversations, so that the sidebar lists them from the first frame; and the
// toolsets, whose icons the first frame of a conversation's tool cards show. The
// providers' list has a key's state and its last four characters, never the key.
func DesktopPageCalls() []string {
	return []string{"GetSettings", "ListProviders", `ListSessions[""]`, "ListToolsets"}
}

// pageData is the JSON block: the calls' results by method name, and the strings of the
// window's language (the build writes locales/<lng>.json, every namespace in one file).
type pageData struct {
	Calls  map[string]json.RawMessage `json:"calls"`
	Locale *pageLocale                `json:"locale,omitempty"`
}

type pageLocale struct {
	Lng     string          `json:"lng"`
	Strings json.RawMessage `json:"strings"`
}

// servePage answers with index.html carrying the page data before </body>; false when the
// page has nothing to carry (no such methods, no locale files), so the file is served as is.
// Without withData it carries only the build's strings (chosen by Accept-Language), no
// call's answer: that is the page anyone who can reach the port may load.
// A page with data is never stored (Cache-Control: no-store): it holds this moment's settings.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, withData bool) bool {
	html := s.page.html
	if html == nil {
		return false
	}
	data := pageData{Calls: map[string]json.RawMessage{}}
	if withData {
		data.Calls = s.pageCallResults(r)
	}
	if lng := s.pageLanguage(r, data.Calls); lng != "" {
		if b, ok := s.page.strings[lng]; ok {
			data.Locale = &pageLocale{Lng: lng, Strings: b}
		}
	}
	if len(data.Calls) == 0 && data.Locale == nil {
		return false
	}
	// json.Marshal escapes <, > and & (also inside the raw locale), so the text cannot end
	// the script element early.
	block, err := json.Marshal(data)
	if err != nil {
		s.log.Warn("serve: encode page data", "err", err)
		return false
	}
	var out bytes.Buffer
	out.Grow(len(html) + len(block) + 80)
	at := s.page.bodyEnd
	out.Write(html[:at])
	fmt.Fprintf(&out, `<script type="application/json" id="%s">`, pageDataID)
	out.Write(block)
	out.WriteString("</script>\n")
	out.Write(html[at:])
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(out.Bytes()))
	return true
}

// pageCallResults calls each of pageCalls the facade has; a method that fails is left out
// (the page then calls it itself and shows the error where it shows any). The results are
// keyed as the calls are.
func (s *Server) pageCallResults(r *http.Request) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	ctx, done := s.callContext(r)
	defer done()
	recv := s.receiver(ctx)
	for _, c := range s.pageCalls {
		res, err := c.m.call(recv, c.in, s.logPanic(c.m.name))
		if err != nil {
			s.log.Warn("serve: page data", "call", c.key, "err", err)
			continue
		}
		b, err := json.Marshal(res)
		if err != nil {
			s.log.Warn("serve: page data", "call", c.key, "err", err)
			continue
		}
		out[c.key] = b
	}
	return out
}

// pageLanguage picks the locale file for the window the way the frontend does
// (resolveLanguage): the language setting when it names a locale the build has, else the
// browser's languages (Accept-Language) matched by their primary subtag, else "en". The
// frontend checks the choice and loads another locale when it resolves a different one.
func (s *Server) pageLanguage(r *http.Request, calls map[string]json.RawMessage) string {
	have := s.locales
	if len(have) == 0 {
		return ""
	}
	if set := settingString(calls["GetSettings"], languageSetting); set != "" {
		for _, l := range have {
			if l == set {
				return l
			}
		}
	}
	for _, tag := range acceptLanguages(r.Header.Get("Accept-Language")) {
		for _, l := range have {
			if strings.EqualFold(tag, l) || primarySubtag(tag) == primarySubtag(l) {
				return l
			}
		}
	}
	for _, l := range have {
		if l == "en" {
			return l
		}
	}
	return ""
}

// settingString reads one string value out of a settings snapshot ({"values": {...}}).
func settingString(snapshot json.RawMessage, key string) string {
	var v struct {
		Values map[string]any `json:"values"`
	}
	if len(snapshot) == 0 || json.Unmarshal(snapshot, &v) != nil {
		return ""
	}
	s, _ := v.Values[key].(string)
	return s
}

// acceptLanguages lists the tags of an Accept-Language header, most wanted first, without
// those refused (q=0) and the wildcard.
func acceptLanguages(header string) []string {
	values := weightedValues(header)
	values = slices.DeleteFunc(values, func(v weighted) bool { return v.value == "*" || v.q <= 0 })
	slices.SortStableFunc(values, func(a, b weighted) int { return cmp.Compare(b.q, a.q) })
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v.value
	}
	return out
}

// pageFiles are what every page is made of, read from the embedded build once: index.html
// (nil when it is missing), where its </body> starts, and each valid locale file.
type pageFiles struct {
	html    []byte
	bodyEnd int
	strings map[string]json.RawMessage
}

func readPageFiles(assets fs.FS, locales []string) pageFiles {
	var p pageFiles
	if assets == nil {
		return p
	}
	if html, err := fs.ReadFile(assets, "index.html"); err == nil {
		p.html = html
		if p.bodyEnd = bytes.LastIndex(bytes.ToLower(html), []byte("</body>")); p.bodyEnd < 0 {
			p.bodyEnd = len(html)
		}
	}
	p.strings = map[string]json.RawMessage{}
	for _, lng := range locales {
		if b, err := fs.ReadFile(assets, "locales/"+lng+".json"); err == nil && json.Valid(b) {
			p.strings[lng] = b
		}
	}
	return p
}

// localeNames lists the languages the build wrote locales/<lng>.json for.
func localeNames(assets fs.FS) []string {
	if assets == nil {
		return nil
	}
	files, err := fs.Glob(assets, "locales/*.json")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".json"))
	}
	return names
}

// primarySubtag is the language part of a tag, lower case: "zh" for "zh-CN" and "zh_TW".
func primarySubtag(tag string) string {
	tag = strings.ToLower(tag)
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		return tag[:i]
	}
	return tag
}

// PageMiddleware gives a window that no Server serves, the desktop window's asset server,
// the same index.html as `serve`: the answers of calls on bound (nil: serve's) and the
// window's strings, so its first frame needs no call and no locale chunk either. Every
// other request goes to next. Every answer, the page's and next's, carries the same
// security headers as `serve` (Content-Security-Policy above all: an answer's Markdown
// cannot make the window load from another host).
func PageMiddleware(bound any, assets fs.FS, log *slog.Logger, calls []string) (func(http.Handler) http.Handler, error) {
	s, err := New(Config{Bound: bound, Assets: assets, Logger: log, PageCalls: calls})
	if err != nil {
		return nil, err
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			setSecurityHeaders(w.Header())
			if r.Method == http.MethodGet && (r.URL.Path == "/" || r.URL.Path == "/index.html") && s.servePage(w, r, true) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}, nil
}

// SecurityHeaders gives every answer of next the security headers of `serve`, the
// Content-Security-Policy above all: for a desktop window that carries no page data (the
// start-up failure's), whose asset server PageMiddleware does not wrap.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}
