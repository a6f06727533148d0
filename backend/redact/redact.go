// Package redact takes known secrets out of text before it is stored, logged or
// published. Providers echo keys in their errors ("Incorrect API key provided: sk-…"),
// MCP servers print tokens, and either would otherwise land in SQLite, a log file, an
// event and the model's context. The secret store feeds one Set with every value it holds
// (service.Open wires it); chat runs provider and tool errors through it, the bus every
// event, the log handler every record.
//
// What counts as a match: the whole value, any prefix of at least MinLen characters (an
// echo cut short), and a partially masked echo, a prefix and a suffix of the value around
// a run of mask characters ("sk-ab****wxyz"), in the value's plain, JSON-escaped and
// URL-escaped spellings. Values shorter than MinLen are not redacted: they could not be
// told from ordinary words.
package redact

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Placeholder replaces what was redacted.
const Placeholder = "[redacted]"

// MinLen is the shortest value, and the shortest prefix of one, that is redacted.
const MinLen = 8

// LoadWait bounds how long redaction waits for the first load of the set (a keyring that
// does not answer must not stop every log line).
const LoadWait = 3 * time.Second

// Set is the known secrets of one running Cairn; the zero value and nil redact nothing.
// It is safe for concurrent use.
type Set struct {
	mu      sync.RWMutex
	current map[string][]string // needles of each secret by name
	retired []string            // needles of values replaced or deleted in this process
	needles []string            // every needle, longest first
	loading chan struct{}       // closed when the first load is done; nil when none runs
}

// New returns an empty set.
func New() *Set { return &Set{current: map[string][]string{}} }

// Loading marks the set as being filled: redaction waits (up to LoadWait) until done is
// called, so nothing early slips out before the values are known.
func (s *Set) Loading() (done func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.loading = ch
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.loading == ch {
				s.loading = nil
			}
			s.mu.Unlock()
			close(ch)
		})
	}
}

// Put records the value of a secret. A value it replaces stays redacted for the life of
// the process: an answer still running may echo the old key.
func (s *Set) Put(name, value string) {
	if s == nil {
		return
	}
	n := needlesOf(value)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil {
		s.current = map[string][]string{}
	}
	if old, ok := s.current[name]; ok && !slices.Equal(old, n) {
		s.retired = append(s.retired, old...)
	}
	s.current[name] = n
	s.rebuild()
}

// Forget marks a secret deleted; its value stays redacted for the life of the process.
func (s *Set) Forget(name string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.current[name]; ok {
		s.retired = append(s.retired, old...)
		delete(s.current, name)
		s.rebuild()
	}
}

func (s *Set) rebuild() {
	seen := map[string]bool{}
	var all []string
	add := func(ns []string) {
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				all = append(all, n)
			}
		}
	}
	for _, ns := range s.current {
		add(ns)
	}
	add(s.retired)
	slices.SortFunc(all, func(a, b string) int { return len(b) - len(a) })
	s.needles = all
}

// snapshot waits for a running first load and returns the needles.
func (s *Set) snapshot() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	wait := s.loading
	s.mu.RUnlock()
	if wait != nil {
		select {
		case <-wait:
		default:
			t := time.NewTimer(LoadWait)
			select {
			case <-wait:
			case <-t.C:
			}
			t.Stop()
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.needles
}

// secretField names the fields of a JSON value whose strings are secrets themselves (an
// OAuth token stored as JSON holds its access and refresh tokens).
var secretField = regexp.MustCompile(`(?i)token|secret|password|passwd|key|credential|auth`)

// needlesOf lists the spellings of a value that are searched for.
func needlesOf(value string) []string {
	value = strings.TrimSpace(value)
	var vals []string
	if strings.HasPrefix(value, "{") {
		// A JSON document (an OAuth token and its client): its secret fields are what an
		// error can echo; the document itself begins like any other JSON.
		var obj map[string]any
		if json.Unmarshal([]byte(value), &obj) == nil {
			collect(obj, "", &vals)
			return spellings(vals)
		}
	}
	if u, err := url.Parse(value); err == nil && u.Scheme != "" && u.Host != "" {
		// A URL holding a credential: what is secret is the credential, not the scheme and
		// host every other address shares.
		return spellings(urlParts(value, u))
	}
	vals = append(vals, value)
	// "Bearer <token>", "Basic <base64>": a header value whose token is echoed alone.
	if fields := strings.Fields(value); len(fields) > 1 {
		vals = append(vals, fields...)
	}
	return spellings(vals)
}

// spellings lists the plain, JSON-escaped and URL-escaped forms of the values long enough
// to be redacted.
func spellings(vals []string) []string {
	var out []string
	for _, v := range vals {
		if len(v) < MinLen {
			continue
		}
		esc, _ := json.Marshal(v)
		for _, n := range []string{v, string(esc[1 : len(esc)-1]), url.QueryEscape(v), url.PathEscape(v)} {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// urlParts are the credentials in a URL: the password and the user:password pair, the
// query's values. A URL with neither keeps its secret in the host or path, so it is
// searched whole, from after the scheme.
func urlParts(value string, u *url.URL) []string {
	var out []string
	if pw, ok := u.User.Password(); ok {
		out = append(out, pw, u.User.String())
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	if len(out) == 0 {
		out = append(out, strings.TrimPrefix(value, u.Scheme+"://"))
	}
	return out
}

func collect(v any, key string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			collect(vv, k, out)
		}
	case []any:
		for _, vv := range x {
			collect(vv, key, out)
		}
	case string:
		if secretField.MatchString(key) {
			*out = append(*out, strings.TrimSpace(x))
		}
	}
}
