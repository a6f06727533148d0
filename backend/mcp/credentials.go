package mcp

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Credential is a secret Cairn found inside an argument, the URL, or a plain env or
// header value (a password in a URL, --api-key=…, ?token=…, a known token format) and
// moved to the secret store. The config keeps the placeholder {{cairn-secret:<Name>}}
// where the secret was; Cairn puts the value back only when it starts the server. Views
// carry Set and Last4, never the value; on input Credentials are ignored (they follow
// from the placeholders the config holds).
type Credential struct {
	Name  string `json:"name"`
	Set   bool   `json:"set,omitempty"`
	Last4 string `json:"last4,omitempty"`
}

// The placeholder of a moved credential, e.g. {{cairn-secret:password}}.
const (
	placeholderOpen  = "{{cairn-secret:"
	placeholderClose = "}}"
)

var placeholderRE = regexp.MustCompile(`\{\{cairn-secret:([a-z0-9][a-z0-9._-]*)\}\}`)

func placeholder(name string) string { return placeholderOpen + name + placeholderClose }

var (
	// userinfoRE: scheme://user:password@ (the password is the secret).
	userinfoRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:([^\s/?#@]+)@`)
	// queryRE: ?name=value or &name=value; credentialName decides about the name.
	queryRE = regexp.MustCompile(`[?&]([A-Za-z0-9_.\-\[\]]+)=([^&#\s"'<>]+)`)
	// flagRE: an argument --name=value, -name=value or NAME=value.
	flagRE = regexp.MustCompile(`^-{0,2}([A-Za-z][A-Za-z0-9_.-]*)=(.+)$`)
	// flagOnlyRE: an argument --name or -name whose value is the next argument.
	flagOnlyRE = regexp.MustCompile(`^-{1,2}([A-Za-z][A-Za-z0-9_.-]*)$`)
	// headerLineRE: "Authorization: Bearer …" and friends inside an argument or value.
	headerLineRE = regexp.MustCompile(`(?i)\b(authorization|proxy-authorization|x-api-key|api-key|x-auth-token|cookie)\s*:\s*(?:(?:bearer|basic|token)\s+)?([^\s"',;]+)`)
	// bearerRE: "Bearer <token>" anywhere.
	bearerRE = regexp.MustCompile(`(?i)\b(bearer|basic)\s+([A-Za-z0-9._~+/=-]{8,})`)
	// tokenRE: formats that are credentials wherever they appear.
	tokenRE = regexp.MustCompile(`\b(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|` +
		`glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|` +
		`hf_[A-Za-z0-9]{30,}|sk_live_[A-Za-z0-9]{20,}|rk_live_[A-Za-z0-9]{20,})`)
	// credentialNameRE: names of flags, query parameters and variables that hold a
	// credential: ending in key, token, secret, password … (so --token-file is not one).
	credentialNameRE = regexp.MustCompile(`(?i)(^|[-_.\[])(api[-_]?key|apikey|key|token|access[-_]?token|auth[-_]?token|` +
		`bearer|secret|client[-_]?secret|password|passwd|pwd|pass|credentials?|auth|authorization|cookie|sig|signature)\]?$`)
	// suspectRE: something that still looks like a credential assignment after the moves
	// (inside JSON, a config string …): the user is warned, the text is kept.
	suspectRE = regexp.MustCompile(`(?i)(api[-_]?key|apikey|token|secret|passw(or)?d|pwd|credential|bearer)["']?\s*[:=]\s*["']?[^\s"',}{&\x00]{6,}`)
)

// credentialName reports whether a flag, parameter or variable name holds a credential.
func credentialName(name string) bool { return credentialNameRE.MatchString(name) }

// envRefRE is an environment reference: ${TOKEN}, $TOKEN (upper case, as variables are
// named; "$ecret1" is a password) or %TOKEN%.
var envRefRE = regexp.MustCompile(`^(\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Z_][A-Z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%)$`)

// reference reports whether a value only points at a secret kept elsewhere: an
// environment reference or a Cairn placeholder.
func reference(v string) bool {
	v = strings.TrimSpace(v)
	return v == "" || envRefRE.MatchString(v) || placeholderRE.MatchString(v)
}

// span is a secret inside a text: [start, end) and a name for it.
type span struct {
	start, end int
	part       string
}

// findSecrets finds the credentials inside one text. Spans never overlap; a placeholder
// or an environment reference is never one.
func findSecrets(s string) []span {
	var out []span
	add := func(start, end int, part string) {
		v := s[start:end]
		if reference(v) || len(v) < 3 {
			return
		}
		for _, o := range out {
			if start < o.end && o.start < end {
				return
			}
		}
		out = append(out, span{start, end, part})
	}
	for _, m := range userinfoRE.FindAllStringSubmatchIndex(s, -1) {
		add(m[2], m[3], "password")
	}
	for _, m := range headerLineRE.FindAllStringSubmatchIndex(s, -1) {
		add(m[4], m[5], strings.ToLower(s[m[2]:m[3]]))
	}
	for _, m := range bearerRE.FindAllStringSubmatchIndex(s, -1) {
		if hasDigit(s[m[4]:m[5]]) { // "Basic instructions" is prose, not a credential
			add(m[4], m[5], "token")
		}
	}
	for _, m := range queryRE.FindAllStringSubmatchIndex(s, -1) {
		if name := s[m[2]:m[3]]; credentialName(name) {
			add(m[4], m[5], name)
		}
	}
	if m := flagRE.FindStringSubmatchIndex(s); m != nil && !strings.Contains(s[:m[3]], "://") {
		if name := s[m[2]:m[3]]; credentialName(name) {
			add(m[4], m[5], name)
		}
	}
	for _, m := range tokenRE.FindAllStringIndex(s, -1) {
		if hasDigit(s[m[0]:m[1]]) { // sk-some-package-name is a name, not a key
			add(m[0], m[1], "token")
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.start - b.start })
	return out
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// field is one plain text of a config that may hold a credential, and how a warning
// names it in every language: args[N] (from 1), url, env.NAME, headers.NAME.
type field struct {
	text  *string
	where string
}

// plainFields lists the texts of a config where credentials are looked for: every
// argument, the URL, and the values of env variables and headers that are not secret.
func plainFields(s *Server) []field {
	var out []field
	for i := range s.Args {
		out = append(out, field{&s.Args[i], "args[" + strconv.Itoa(i+1) + "]"})
	}
	if s.URL != "" {
		out = append(out, field{&s.URL, "url"})
	}
	for i := range s.Env {
		if !s.Env[i].Secret {
			out = append(out, field{&s.Env[i].Value, "env." + s.Env[i].Name})
		}
	}
	for i := range s.Headers {
		if !s.Headers[i].Secret {
			out = append(out, field{&s.Headers[i].Value, "headers." + s.Headers[i].Name})
		}
	}
	return out
}

// moved is what moveCredentials did to a config.
type moved struct {
	values   map[string]string // credential name → value, to write to the secret store
	names    []string          // every credential the config refers to, sorted
	warnings []*apperr.Error   // texts that look like credentials but stay as they are
}

// moveCredentials replaces every credential found in the plain texts of in by a
// placeholder and returns the values; plain env variables and headers whose names say
// they hold a credential become secret (the existing secret mechanism keeps them).
// stored names the credentials of the stored config: a placeholder may refer only to
// those. It fails (MCPServerInvalid) on a placeholder of an unknown credential.
func moveCredentials(in *Server, stored []string) (moved, error) {
	out := moved{values: map[string]string{}}
	for i := range in.Env {
		v := &in.Env[i]
		if !v.Secret && credentialName(v.Name) && !reference(v.Value) {
			v.Secret = true
		}
	}
	for i := range in.Headers {
		v := &in.Headers[i]
		if !v.Secret && credentialName(v.Name) && !reference(v.Value) {
			v.Secret = true
		}
	}
	used := map[string]bool{}
	fields := plainFields(in)
	for _, f := range fields {
		for _, m := range placeholderRE.FindAllStringSubmatch(*f.text, -1) {
			if !slices.Contains(stored, m[1]) {
				return moved{}, invalid(fmt.Sprintf("%s refers to a secret that is not stored here (%s)", f.where, m[1]))
			}
			used[m[1]] = true
		}
	}
	name := func(part string) string {
		base := credentialBase(part)
		n := base
		for i := 2; used[n]; i++ {
			n = base + "-" + strconv.Itoa(i)
		}
		used[n] = true
		return n
	}
	if in.Transport == TransportStdio {
		moveFlagValues(in.Args, name, out.values)
	}
	for _, f := range fields {
		spans := findSecrets(*f.text)
		for i := len(spans) - 1; i >= 0; i-- { // right to left: earlier offsets stay valid
			sp := spans[i]
			n := name(sp.part)
			out.values[n] = (*f.text)[sp.start:sp.end]
			*f.text = (*f.text)[:sp.start] + placeholder(n) + (*f.text)[sp.end:]
		}
		if suspectRE.MatchString(placeholderRE.ReplaceAllString(*f.text, "\x00")) {
			out.warnings = append(out.warnings, notMoved(in.Name, f.where))
		}
	}
	for n := range used {
		out.names = append(out.names, n)
	}
	slices.Sort(out.names)
	return out, nil
}

// moveFlagValues moves the argument after a credential flag (--token VALUE).
func moveFlagValues(args []string, name func(string) string, values map[string]string) {
	for i := 0; i+1 < len(args); i++ {
		m := flagOnlyRE.FindStringSubmatch(args[i])
		next := args[i+1]
		if m == nil || !credentialName(m[1]) || strings.HasPrefix(next, "-") || reference(next) {
			continue
		}
		n := name(m[1])
		values[n] = next
		args[i+1] = placeholder(n)
		i++
	}
}

// credentialBase turns what a credential was called (a flag, a parameter, "password")
// into a credential name: lower case letters, digits, '.', '_' and '-'.
func credentialBase(part string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(strings.TrimLeft(part, "-")) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
			b.WriteRune(c)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-._")
	if s == "" || len(s) > 40 {
		return "secret"
	}
	return s
}

func notMoved(server, where string) *apperr.Error {
	return apperr.New(apperr.MCPCredentialNotMoved, "mcp server %s: %s looks like it holds a credential that Cairn could not move to the keyring", server, where).
		WithParam("server", server).WithParam("where", where)
}

// expand puts the credentials' values back into a text (missing ones become empty).
func expand(s string, values map[string]string) string {
	if !strings.Contains(s, placeholderOpen) {
		return s
	}
	return placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		return values[placeholderRE.FindStringSubmatch(p)[1]]
	})
}
