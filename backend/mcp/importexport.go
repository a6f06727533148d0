package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Import statuses, one per entry of the pasted or loaded JSON.
const (
	ImportAdded     = "imported"  // a new server
	ImportUpdated   = "updated"   // a server of that name existed and was changed
	ImportUnchanged = "unchanged" // a server of that name existed with the same config
	ImportRejected  = "rejected"  // not imported; Reason says why
)

// ImportEntry is the outcome of one entry.
type ImportEntry struct {
	Name   string        `json:"name"`
	Status string        `json:"status"`
	ID     string        `json:"id,omitempty"`
	Reason string        `json:"reason,omitempty"`
	Error  *apperr.Error `json:"error,omitempty"`
	// Warnings name texts that look like credentials but could not be moved to the
	// keyring (mcp_credential_not_moved) and a command not found on the server's PATH
	// (mcp_command_not_found); the entry was imported all the same.
	Warnings []*apperr.Error `json:"warnings,omitempty"`
}

// ImportReport says per entry what happened, in the order of the input.
type ImportReport struct {
	Entries   []ImportEntry `json:"entries"`
	Imported  int           `json:"imported"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Rejected  int           `json:"rejected"`
}

// MaxImportEntries bounds one import: a file with more server entries is refused whole.
const MaxImportEntries = 1000

// Import reads the `mcpServers` JSON other desktop clients use (also VS Code's `servers`
// and a bare name → entry object): stdio entries with command / args / env / cwd, remote
// ones with url / type / headers, `disabled: true` to import turned off, and the timeouts
// other clients write (`timeout`, see timeoutsOf). Values of env
// variables and headers whose names look like credentials go to the secret store. Each
// entry is imported, updated (same name), left unchanged or rejected with a reason; JSON
// that is not such an object at all is an error (MCPImportInvalid), and so is one with
// more than MaxImportEntries entries (MCPImportTooMany).
//
// The entries that are not rejected are stored together (one transaction, one registry
// update): when storing fails or ctx ends half-way, none of them is, and the error says
// why.
func (m *Manager) Import(ctx context.Context, data []byte) (ImportReport, error) {
	rep := ImportReport{Entries: []ImportEntry{}}
	entries, err := parseImport(data)
	if err != nil {
		return rep, apperr.Wrap(err, apperr.MCPImportInvalid, "mcp import").WithParam("message", err.Error())
	}
	if len(entries) > MaxImportEntries {
		return rep, apperr.New(apperr.MCPImportTooMany, "mcp import: %d entries, at most %d", len(entries), MaxImportEntries).
			WithParam("count", len(entries)).WithParam("max", MaxImportEntries)
	}
	existing := m.serversByName()
	seen := map[string]bool{}
	var changes []change
	for _, e := range entries {
		out := ImportEntry{Name: e.name}
		srv, err := entryServer(e.name, e.raw)
		if err == nil && seen[strings.ToLower(srv.Name)] {
			err = invalid(fmt.Sprintf("the name %s is given twice", apperr.Quote(srv.Name)))
		}
		var ch *change
		if err == nil {
			seen[strings.ToLower(srv.Name)] = true
			out.Status, ch, err = m.importOne(srv, existing)
		}
		if err != nil {
			out.reject(err)
		}
		if ch != nil {
			out.ID, out.Warnings = ch.stored.ID, ch.warnings
			changes = append(changes, *ch)
		} else if old := existing[strings.ToLower(srv.Name)]; err == nil && old != nil {
			out.ID = old.ID
		}
		rep.count(out.Status)
		rep.Entries = append(rep.Entries, out)
	}
	if len(changes) == 0 {
		return rep, nil
	}
	if err := m.commit(ctx, changes); err != nil {
		return ImportReport{Entries: []ImportEntry{}}, err
	}
	m.applyChanges(ctx, changes)
	return rep, nil
}

func (e *ImportEntry) reject(err error) {
	ae := errOf(err)
	e.Status, e.Error = ImportRejected, ae
	e.Reason = ae.Message
	if r, ok := ae.Params["reason"].(string); ok {
		e.Reason = r
	}
}

func (r *ImportReport) count(status string) {
	switch status {
	case ImportAdded:
		r.Imported++
	case ImportUpdated:
		r.Updated++
	case ImportUnchanged:
		r.Unchanged++
	default:
		r.Rejected++
	}
}

// importOne prepares one entry against the configured servers (by lower-case name); an
// entry that changes nothing has no change.
func (m *Manager) importOne(srv Server, existing map[string]*Server) (status string, ch *change, err error) {
	if err := srv.normalize(); err != nil {
		return "", nil, err
	}
	old := existing[strings.ToLower(srv.Name)]
	status = ImportAdded
	srv = srv.withTrust(old == nil || old.trustsHints()) // the format has no such field: keep the choice
	if old == nil {
		srv.ID = newID()
	} else {
		if old.Transport == TransportBuiltin {
			return "", nil, invalid(fmt.Sprintf("%s is the name of a built-in server", apperr.Quote(srv.Name)))
		}
		srv.ID = old.ID
		// What the entry does not say is kept: the roots, the sandbox, timeouts.
		keepUnsaid(&srv, *old)
		if err := srv.normalize(); err != nil { // the kept settings with the entry's new ones
			return "", nil, err
		}
		if cur, err := m.resolveVars(*old); err == nil && runtimeEqual(cur, srv) && old.Enabled == srv.Enabled &&
			old.CallTimeoutMs == srv.CallTimeoutMs {
			return ImportUnchanged, nil, nil
		}
		status = ImportUpdated
	}
	c, err := m.prepare(srv, old)
	if err != nil {
		return "", nil, err
	}
	return status, &c, nil
}

// serversByName is every configured server's config by lower-case name, read at once.
func (m *Manager) serversByName() map[string]*Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]*Server, len(m.servers))
	for _, s := range m.servers {
		cfg := s.config()
		out[strings.ToLower(cfg.Name)] = &cfg
	}
	return out
}

// resolveVars returns the config with secret values filled in (for comparisons).
func (m *Manager) resolveVars(s Server) (Server, error) {
	rc, err := m.resolve(s)
	if err != nil {
		return s, err
	}
	s = s.clone()
	for i, v := range s.Env {
		s.Env[i].Value = rc.env[v.Name]
	}
	for i, v := range s.Headers {
		s.Headers[i].Value = rc.headers[v.Name]
	}
	s.Args, s.URL = rc.args, rc.url
	return s, nil
}

type rawEntry struct {
	name string
	raw  json.RawMessage
}

// parseImport finds the server map and returns its entries in input order.
func parseImport(data []byte) ([]rawEntry, error) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(data) == 0 {
		return nil, fmt.Errorf("the input is empty")
	}
	top, err := orderedObject(data)
	if err != nil {
		return nil, err
	}
	for _, key := range []string{"mcpServers", "servers", "mcp_servers"} {
		for _, e := range top {
			if e.name == key {
				inner, err := orderedObject(e.raw)
				if err != nil {
					return nil, fmt.Errorf("%q: %w", key, err)
				}
				return inner, nil
			}
		}
	}
	// A bare map of servers: every value an object naming a command or a URL.
	for _, e := range top {
		var probe map[string]json.RawMessage
		if json.Unmarshal(e.raw, &probe) != nil {
			return nil, fmt.Errorf("no \"mcpServers\" object found")
		}
		_, c := probe["command"]
		_, u := probe["url"]
		_, su := probe["serverUrl"]
		_, hu := probe["httpUrl"]
		if !c && !u && !su && !hu {
			return nil, fmt.Errorf("no \"mcpServers\" object found")
		}
	}
	return top, nil
}

// orderedObject decodes one JSON object keeping the order of its keys.
func orderedObject(data []byte) ([]rawEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected a JSON object")
	}
	var out []rawEntry
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("not valid JSON at %q: %w", key, err)
		}
		out = append(out, rawEntry{name: key, raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not valid JSON: text after the object")
	}
	return out, nil
}

// entryServer converts one entry; errors are MCPServerInvalid with the reason.
func entryServer(name string, raw json.RawMessage) (Server, error) {
	var e map[string]json.RawMessage
	if err := json.Unmarshal(raw, &e); err != nil || e == nil {
		return Server{}, invalid("the entry is not a JSON object")
	}
	srv := Server{Name: name, Enabled: true}
	str := func(key string) (string, error) {
		v, ok := e[key]
		if !ok || string(v) == "null" {
			return "", nil
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", invalid(fmt.Sprintf("%s must be a string", apperr.Quote(key)))
		}
		return s, nil
	}
	var err error
	if srv.Command, err = str("command"); err != nil {
		return srv, err
	}
	if srv.Cwd, err = str("cwd"); err != nil {
		return srv, err
	}
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		u, err := str(k)
		if err != nil {
			return srv, err
		}
		if u != "" && srv.URL == "" {
			srv.URL = u
			if k == "httpUrl" {
				srv.Transport = TransportHTTP
			}
		}
	}
	typ, err := str("type")
	if err != nil {
		return srv, err
	}
	if typ == "" {
		if typ, err = str("transport"); err != nil {
			return srv, err
		}
	}
	switch strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(typ, "-", ""), "_", "")) {
	case "":
	case "stdio":
		srv.Transport = TransportStdio
	case "http", "streamablehttp", "streamable":
		srv.Transport = TransportHTTP
	case "sse":
		srv.Transport = TransportSSE
	default:
		return srv, invalid(fmt.Sprintf("the transport %s is not supported (stdio, http or sse)", apperr.Quote(typ)))
	}
	if v, ok := e["args"]; ok && string(v) != "null" {
		var args []any
		if json.Unmarshal(v, &args) != nil {
			return srv, invalid("\"args\" must be an array of strings")
		}
		for _, a := range args {
			s, ok := scalar(a)
			if !ok {
				return srv, invalid("\"args\" must be an array of strings")
			}
			srv.Args = append(srv.Args, s)
		}
	}
	if srv.Env, err = varsOf(e, "env", "environment variable"); err != nil {
		return srv, err
	}
	if srv.Headers, err = varsOf(e, "headers", "header"); err != nil {
		return srv, err
	}
	if v, ok := e["disabled"]; ok {
		var d bool
		if json.Unmarshal(v, &d) != nil {
			return srv, invalid("\"disabled\" must be true or false")
		}
		srv.Enabled = !d
	}
	if v, ok := e["enabled"]; ok {
		var en bool
		if json.Unmarshal(v, &en) != nil {
			return srv, invalid("\"enabled\" must be true or false")
		}
		srv.Enabled = en
	}
	if srv.ConnectTimeoutMs, srv.CallTimeoutMs, err = timeoutsOf(e); err != nil {
		return srv, err
	}
	if err := cairnKeysOf(e, &srv); err != nil {
		return srv, err
	}
	if srv.Command == "" && srv.URL == "" {
		return srv, invalid("the entry has neither a \"command\" nor a \"url\"")
	}
	if srv.Command != "" && srv.URL != "" {
		return srv, invalid("the entry has both a \"command\" and a \"url\"")
	}
	return srv, nil
}

// maxImportTimeout bounds an imported timeout (a day), so a typo cannot overflow.
const maxImportTimeout = 24 * time.Hour

// timeoutsOf reads the timeouts other clients write (0: none given). The call timeout:
// Cairn's own "callTimeoutMs", Codex's "tool_timeout_sec", or "timeout", which Cline and
// Roo Code write in seconds and Gemini CLI in milliseconds: a value above 3600 is read
// as milliseconds (an hour is Cline's most), anything else as seconds. The connect
// timeout: "connectTimeoutMs", Codex's "startup_timeout_ms" or "startup_timeout_sec".
// A Go duration text ("90s") is read too.
func timeoutsOf(e map[string]json.RawMessage) (connectMs, callMs int, err error) {
	read := func(keys []string, unit func(key string, v float64) time.Duration) (int, error) {
		for _, k := range keys {
			raw, ok := e[k]
			if !ok || string(raw) == "null" {
				continue
			}
			d, ok := importDuration(raw, func(v float64) time.Duration { return unit(k, v) })
			if !ok || d < 0 || d > maxImportTimeout {
				return 0, invalid(fmt.Sprintf("%s must be a timeout between 0 and 24 hours (a number, or a duration such as \"90s\")", apperr.Quote(k)))
			}
			return int(d / time.Millisecond), nil
		}
		return 0, nil
	}
	byName := func(key string, v float64) time.Duration {
		switch {
		case strings.HasSuffix(key, "Ms"), strings.HasSuffix(key, "_ms"):
			return time.Duration(v * float64(time.Millisecond))
		case key == "timeout" && v > 3600:
			return time.Duration(v * float64(time.Millisecond))
		default:
			return time.Duration(v * float64(time.Second))
		}
	}
	if connectMs, err = read([]string{"connectTimeoutMs", "startup_timeout_ms", "startup_timeout_sec"}, byName); err != nil {
		return 0, 0, err
	}
	callMs, err = read([]string{"callTimeoutMs", "tool_timeout_sec", "timeout"}, byName)
	return connectMs, callMs, err
}

// importDuration reads a JSON number (in the key's unit) or a text: a number in that unit
// or a Go duration.
func importDuration(raw json.RawMessage, unit func(float64) time.Duration) (time.Duration, bool) {
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		return unit(n), !math.IsNaN(n)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return unit(n), true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// scalar accepts strings, numbers and booleans as text (configs write PORT: 3000).
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return fmt.Sprint(x), true
	case bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

func varsOf(e map[string]json.RawMessage, key, what string) ([]Var, error) {
	v, ok := e[key]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var m map[string]any
	if json.Unmarshal(v, &m) != nil {
		return nil, invalid(fmt.Sprintf("%s must be an object of names to values", apperr.Quote(key)))
	}
	out := make([]Var, 0, len(m))
	for name, val := range m {
		s, ok := scalar(val)
		if !ok {
			return nil, invalid(fmt.Sprintf("the %s %s must have a text value", what, apperr.Quote(name)))
		}
		out = append(out, Var{Name: name, Value: s, Secret: looksSecret(name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Export is the `mcpServers` JSON of the configured servers (built-ins excluded).
type Export struct {
	JSON string `json:"json"`
	// WithheldSecrets names the values left empty because secrets were not included
	// ("<server>: <name>").
	WithheldSecrets []string `json:"withheldSecrets,omitempty"`
}

// Export writes every configured server in the `mcpServers` format, in Settings order.
// Secret values are written only when includeSecrets is set; otherwise they are empty
// and listed in WithheldSecrets.
func (m *Manager) Export(ctx context.Context, includeSecrets bool) (Export, error) {
	list, err := m.db.servers(ctx)
	if err != nil {
		return Export{}, err
	}
	var out Export
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpServers\": {")
	n := 0
	for _, s := range list {
		if s.Transport == TransportBuiltin {
			continue
		}
		if includeSecrets {
			if s, err = m.resolveVars(s); err != nil {
				return Export{}, err
			}
		}
		entry := map[string]any{}
		vars := func(vs []Var) map[string]string {
			mm := map[string]string{}
			for _, v := range vs {
				mm[v.Name] = v.Value
				if v.Secret && !includeSecrets {
					mm[v.Name] = ""
					out.WithheldSecrets = append(out.WithheldSecrets, s.Name+": "+v.Name)
				}
			}
			return mm
		}
		switch s.Transport {
		case TransportStdio:
			entry["command"] = s.Command
			entry["args"] = append([]string{}, s.Args...)
			if len(s.Env) > 0 {
				entry["env"] = vars(s.Env)
			}
			if s.Cwd != "" {
				entry["cwd"] = s.Cwd
			}
		default:
			entry["type"] = string(s.Transport)
			entry["url"] = s.URL
			if len(s.Headers) > 0 {
				entry["headers"] = vars(s.Headers)
			}
		}
		if !s.Enabled {
			entry["disabled"] = true
		}
		if s.ConnectTimeoutMs > 0 {
			entry["connectTimeoutMs"] = s.ConnectTimeoutMs
		}
		if s.CallTimeoutMs > 0 {
			entry["callTimeoutMs"] = s.CallTimeoutMs
		}
		exportCairnKeys(entry, s)
		if !includeSecrets {
			for _, c := range s.Credentials { // the texts keep the placeholders
				out.WithheldSecrets = append(out.WithheldSecrets, s.Name+": "+c.Name)
			}
		}
		key, _ := json.Marshal(s.Name)
		val, err := json.MarshalIndent(entry, "    ", "  ")
		if err != nil {
			return Export{}, apperr.Wrap(err, apperr.Internal, "export mcp server")
		}
		if n > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    %s: %s", key, val)
		n++
	}
	if n > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	out.JSON = b.String()
	return out, nil
}
