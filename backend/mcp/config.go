package mcp

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// Transport says how Cairn talks to a server.
type Transport string

// The transports (MCP-1, MCP-2).
const (
	TransportStdio   Transport = "stdio"   // a child process, JSON-RPC over stdin/stdout
	TransportHTTP    Transport = "http"    // Streamable HTTP, falling back to SSE on 400/404/405
	TransportSSE     Transport = "sse"     // the older HTTP+SSE transport only
	TransportBuiltin Transport = "builtin" // an in-process server (in-memory transport)
)

// Approval is the user's per-tool choice about asking before a call. It reaches the
// permission engine as it is (tools.Entry.Approval), so "allow" means never ask.
type Approval = tools.Approval

// The approval choices; the default asks for every tool not annotated read-only.
const (
	ApprovalDefault = tools.ApprovalDefault
	ApprovalAsk     = tools.ApprovalAsk
	ApprovalAllow   = tools.ApprovalAllow
)

// Var is one environment variable or HTTP header. A secret's value lives in the secret
// store: views carry only Set and Last4; on input an empty Value of a secret keeps the
// stored one.
type Var struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	Secret bool   `json:"secret,omitempty"`
	Set    bool   `json:"set,omitempty"`   // view: a secret value is stored
	Last4  string `json:"last4,omitempty"` // view: the stored secret's last 4 characters
}

// Server is one configured MCP server, as Settings edits it and as it is stored.
type Server struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Transport Transport `json:"transport"`
	Enabled   bool      `json:"enabled"`
	// stdio
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Env     []Var    `json:"env,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// http / sse
	URL     string `json:"url,omitempty"`
	Headers []Var  `json:"headers,omitempty"`
	// Roots are folders offered to the server as MCP roots (file:// roots); RootsMode
	// says which roots it is offered at all (see RootsMode; "" decides from the args).
	Roots     []string  `json:"roots,omitempty"`
	RootsMode RootsMode `json:"rootsMode,omitempty"`
	// Sandbox, when on, runs a stdio server inside the operating system's sandbox.
	Sandbox *ServerSandbox `json:"sandbox,omitempty"`
	// Timeouts; 0 means the defaults (connect 30 s, calls: none beyond the chat's).
	ConnectTimeoutMs int `json:"connectTimeoutMs,omitempty"`
	CallTimeoutMs    int `json:"callTimeoutMs,omitempty"`
	// TrustReadOnlyHints: the tools this server annotates read-only run without asking
	// (and in plan mode). Off, they ask like any other tool. On when nil: a new server
	// gets it, and a save without it keeps the stored choice. Views always carry it.
	TrustReadOnlyHints *bool `json:"trustReadOnlyHints,omitempty"`
	// Credentials are the secrets moved out of the texts above (see Credential); set by
	// Cairn, ignored on input.
	Credentials []Credential `json:"credentials,omitempty"`

	said importedKeys // import only: which of Cairn's own keys the entry carried
}

// trustsHints says whether the server's read-only annotations are honoured.
func (s Server) trustsHints() bool { return s.TrustReadOnlyHints == nil || *s.TrustReadOnlyHints }

// withTrust returns s with TrustReadOnlyHints set to on.
func (s Server) withTrust(on bool) Server {
	s.TrustReadOnlyHints = &on
	return s
}

// DefaultConnectTimeout bounds start-up and initialize of a server without its own.
const DefaultConnectTimeout = 30 * time.Second

func (s Server) connectTimeout(def time.Duration) time.Duration {
	if s.ConnectTimeoutMs > 0 {
		return time.Duration(s.ConnectTimeoutMs) * time.Millisecond
	}
	return def
}

func (s Server) callTimeout() time.Duration {
	return time.Duration(max(s.CallTimeoutMs, 0)) * time.Millisecond
}

// clone copies the slices so a caller's later edits do not reach the stored copy.
func (s Server) clone() Server {
	s.Args = slices.Clone(s.Args)
	s.Env = slices.Clone(s.Env)
	s.Headers = slices.Clone(s.Headers)
	s.Roots = slices.Clone(s.Roots)
	s.Credentials = slices.Clone(s.Credentials)
	if s.Sandbox != nil {
		sb := s.Sandbox.clone()
		s.Sandbox = &sb
	}
	return s
}

// runtimeEqual reports whether two configs start the same server (a rename or a
// timeout change needs no restart).
func runtimeEqual(a, b Server) bool {
	vars := func(x, y []Var) bool {
		return slices.EqualFunc(x, y, func(p, q Var) bool { return p.Name == q.Name && p.Value == q.Value && p.Secret == q.Secret })
	}
	return a.Transport == b.Transport && a.Command == b.Command && slices.Equal(a.Args, b.Args) &&
		vars(a.Env, b.Env) && a.Cwd == b.Cwd && a.URL == b.URL && vars(a.Headers, b.Headers) &&
		slices.Equal(a.Roots, b.Roots) && a.RootsMode == b.RootsMode && a.sandbox().equal(b.sandbox()) &&
		a.ConnectTimeoutMs == b.ConnectTimeoutMs
}

var (
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	secretNameRE = regexp.MustCompile(`(?i)(key|token|secret|passw|pwd|auth|credential|cookie|session)`)
)

// looksSecret says whether a variable or header name usually holds a credential, so an
// import keeps its value in the secret store.
func looksSecret(name string) bool { return secretNameRE.MatchString(name) }

// normalize trims the fields and validates them; the error is MCPServerInvalid.
func (s *Server) normalize() error {
	s.Name = strings.TrimSpace(s.Name)
	s.Command = strings.TrimSpace(s.Command)
	s.Cwd = strings.TrimSpace(s.Cwd)
	s.URL = strings.TrimSpace(s.URL)
	if s.Transport == "" {
		if s.URL != "" && s.Command == "" {
			s.Transport = TransportHTTP
		} else {
			s.Transport = TransportStdio
		}
	}
	if s.Name == "" {
		return invalid("the name is empty")
	}
	if len(s.Name) > 100 || strings.IndexFunc(s.Name, unprintable) >= 0 {
		return invalid("the name must be at most 100 printable characters on one line")
	}
	switch s.Transport {
	case TransportStdio:
		if s.Command == "" {
			return invalid("a stdio server needs a command")
		}
		if s.URL != "" || len(s.Headers) > 0 {
			return invalid("a stdio server has no URL or headers")
		}
	case TransportHTTP, TransportSSE:
		if s.URL == "" {
			return invalid("a remote server needs a URL")
		}
		// A moved credential's placeholder is checked as the value it stands for.
		u, err := url.Parse(placeholderRE.ReplaceAllString(s.URL, "x"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid(apperr.Quote(s.URL) + " is not an http(s) URL")
		}
		if s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
			return invalid("a remote server has no command, arguments, environment or working directory")
		}
	case TransportBuiltin:
	default:
		return invalid(fmt.Sprintf("unknown transport %s (use stdio, http or sse)", apperr.Quote(string(s.Transport))))
	}
	var err error
	if s.Env, err = normalizeVars(s.Env, "environment variable", envNameRE); err != nil {
		return err
	}
	if s.Headers, err = normalizeVars(s.Headers, "header", headerNameRE); err != nil {
		return err
	}
	for i, r := range s.Roots {
		s.Roots[i] = strings.TrimSpace(r)
		if s.Roots[i] == "" {
			return invalid("a root is empty")
		}
	}
	if err := s.normalizeRootsMode(); err != nil {
		return err
	}
	if err := s.normalizeSandbox(); err != nil {
		return err
	}
	if s.ConnectTimeoutMs < 0 || s.CallTimeoutMs < 0 {
		return invalid("timeouts cannot be negative")
	}
	return nil
}

func normalizeVars(vs []Var, what string, re *regexp.Regexp) ([]Var, error) {
	seen := map[string]bool{}
	out := make([]Var, 0, len(vs))
	for _, v := range vs {
		v.Name = strings.TrimSpace(v.Name)
		if !re.MatchString(v.Name) {
			return nil, invalid(fmt.Sprintf("%s is not a valid %s name", apperr.Quote(v.Name), what))
		}
		key := v.Name
		if what == "header" {
			key = strings.ToLower(key)
		}
		if seen[key] {
			return nil, invalid(fmt.Sprintf("the %s %s is given twice", what, apperr.Quote(v.Name)))
		}
		seen[key] = true
		v.Set, v.Last4 = false, ""
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b Var) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// unprintable: a character a name must not hold, as it would act on a terminal or hide
// in a list (controls, bidi overrides, zero-width characters, line separators).
func unprintable(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

func invalid(reason string) *apperr.Error {
	return apperr.New(apperr.MCPServerInvalid, "mcp: %s", reason).WithParam("reason", reason)
}

// newID returns a fresh server id: short, stable, safe in namespaces and secret names.
func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "srv" + hex.EncodeToString(b[:])
}

// secretKey is the secret store name of a server's secret env value or header value.
// Secret names allow [A-Za-z0-9._:-]; other characters (the "_" of env names) are
// hex-escaped so distinct names never share a key.
func secretKey(serverID, kind, name string) string {
	var b strings.Builder
	for _, c := range []byte(name) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, ":%02x", c)
	}
	return "mcp." + serverID + "." + kind + "." + b.String()
}

func sortVars(vs []Var) {
	slices.SortFunc(vs, func(a, b Var) int { return cmp.Compare(a.Name, b.Name) })
}
