package mcp

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// db is the SQL side of the package: servers, the catalog cache and tool prefs.
type db struct{ *store.DB }

const serverCols = `id, name, transport, command, args, env, secret_env, cwd, url, headers, secret_headers,
	roots, connect_timeout_ms, call_timeout_ms, enabled, trust_read_only_hints, credentials, sandbox, roots_mode`

func scanServer(sc interface{ Scan(...any) error }) (Server, error) {
	var s Server
	var args, env, secretEnv, headers, secretHeaders, roots, creds, box string
	var enabled, trust int
	err := sc.Scan(&s.ID, &s.Name, &s.Transport, &s.Command, &args, &env, &secretEnv, &s.Cwd, &s.URL,
		&headers, &secretHeaders, &roots, &s.ConnectTimeoutMs, &s.CallTimeoutMs, &enabled, &trust, &creds, &box, &s.RootsMode)
	if err != nil {
		return s, err
	}
	if box != "" {
		var sb ServerSandbox
		if json.Unmarshal([]byte(box), &sb) == nil {
			s.Sandbox = &sb
		}
	}
	s.Enabled = enabled != 0
	s = s.withTrust(trust != 0)
	_ = json.Unmarshal([]byte(args), &s.Args)
	_ = json.Unmarshal([]byte(roots), &s.Roots)
	var names []string
	_ = json.Unmarshal([]byte(creds), &names)
	for _, n := range names {
		s.Credentials = append(s.Credentials, Credential{Name: n})
	}
	s.Env = joinVars(env, secretEnv)
	s.Headers = joinVars(headers, secretHeaders)
	return s, nil
}

// joinVars rebuilds the Var list from the plain map and the secret names.
func joinVars(plainJSON, secretJSON string) []Var {
	var plain map[string]string
	var secret []string
	_ = json.Unmarshal([]byte(plainJSON), &plain)
	_ = json.Unmarshal([]byte(secretJSON), &secret)
	out := make([]Var, 0, len(plain)+len(secret))
	for k, v := range plain {
		out = append(out, Var{Name: k, Value: v})
	}
	for _, k := range secret {
		out = append(out, Var{Name: k, Secret: true})
	}
	if len(out) == 0 {
		return nil
	}
	sortVars(out)
	return out
}

func splitVars(vs []Var) (plainJSON, secretJSON string) {
	plain := map[string]string{}
	secret := []string{}
	for _, v := range vs {
		if v.Secret {
			secret = append(secret, v.Name)
		} else {
			plain[v.Name] = v.Value
		}
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(secret)
	return string(a), string(b)
}

func credentialNames(cs []Credential) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// sandboxJSON is the stored form of a server's sandbox ("" when it has none).
func sandboxJSON(b *ServerSandbox) string {
	if b == nil {
		return ""
	}
	out, _ := json.Marshal(b)
	return string(out)
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (d db) servers(ctx context.Context) ([]Server, error) {
	rows, err := d.QueryContext(ctx, "SELECT "+serverCols+" FROM mcp_servers ORDER BY position, name")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list mcp servers")
	}
	defer rows.Close()
	var out []Server
	for rows.Next() {
		s, err := scanServer(rows)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read mcp server")
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (d db) server(ctx context.Context, id string) (Server, bool, error) {
	s, err := scanServer(d.QueryRowContext(ctx, "SELECT "+serverCols+" FROM mcp_servers WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, apperr.Wrap(err, apperr.Internal, "read mcp server")
	}
	return s, true, nil
}

// execer is a *sql.DB or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// upsert writes a server's row (secrets excluded); a name clash is MCPServerExists.
func (d db) upsert(ctx context.Context, s Server) error {
	return d.upsertAt(ctx, d.DB, s, -1)
}

// upsertAt is upsert through q; a new row gets position pos (-1: after every other row).
// An import passes the positions itself, so n rows cost no n scans for the largest.
func (d db) upsertAt(ctx context.Context, q execer, s Server, pos int64) error {
	env, secretEnv := splitVars(s.Env)
	headers, secretHeaders := splitVars(s.Headers)
	now := time.Now().UnixMilli()
	enabled, trust := 0, 0
	if s.Enabled {
		enabled = 1
	}
	if s.trustsHints() {
		trust = 1
	}
	_, err := q.ExecContext(ctx, `INSERT INTO mcp_servers (id, name, transport, command, args, env, secret_env, cwd, url,
		headers, secret_headers, roots, connect_timeout_ms, call_timeout_ms, enabled, trust_read_only_hints,
		credentials, sandbox, roots_mode, position, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
		CASE WHEN ? >= 0 THEN ? ELSE (SELECT COALESCE(MAX(position), 0) + 1 FROM mcp_servers) END, ?, ?)
		ON CONFLICT(id) DO UPDATE SET name = excluded.name, transport = excluded.transport, command = excluded.command,
		args = excluded.args, env = excluded.env, secret_env = excluded.secret_env, cwd = excluded.cwd, url = excluded.url,
		headers = excluded.headers, secret_headers = excluded.secret_headers, roots = excluded.roots,
		connect_timeout_ms = excluded.connect_timeout_ms, call_timeout_ms = excluded.call_timeout_ms,
		enabled = excluded.enabled, trust_read_only_hints = excluded.trust_read_only_hints,
		credentials = excluded.credentials, sandbox = excluded.sandbox, roots_mode = excluded.roots_mode,
		updated_at = excluded.updated_at`,
		s.ID, s.Name, string(s.Transport), s.Command, jsonList(s.Args), env, secretEnv, s.Cwd, s.URL,
		headers, secretHeaders, jsonList(s.Roots), s.ConnectTimeoutMs, s.CallTimeoutMs, enabled, trust,
		jsonList(credentialNames(s.Credentials)), sandboxJSON(s.Sandbox), string(s.RootsMode), pos, pos, now, now)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed: mcp_servers.name") {
			return apperr.Wrap(err, apperr.MCPServerExists, "mcp server %q exists", s.Name).WithParam("name", s.Name)
		}
		return apperr.Wrap(err, apperr.Internal, "save mcp server")
	}
	return nil
}

// lastPosition is the largest position in use (0 without servers).
func (d db) lastPosition(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (int64, error) {
	var pos int64
	if err := q.QueryRowContext(ctx, "SELECT COALESCE(MAX(position), 0) FROM mcp_servers").Scan(&pos); err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "read mcp server positions")
	}
	return pos, nil
}

func (d db) setEnabled(ctx context.Context, id string, on bool) error {
	v := 0
	if on {
		v = 1
	}
	_, err := d.ExecContext(ctx, "UPDATE mcp_servers SET enabled = ?, updated_at = ? WHERE id = ?", v, time.Now().UnixMilli(), id)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "enable mcp server")
	}
	return nil
}

func (d db) delete(ctx context.Context, id string) error {
	if _, err := d.ExecContext(ctx, "DELETE FROM mcp_servers WHERE id = ?", id); err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete mcp server")
	}
	return nil
}

// catalog is one server's cached tools/list answer.
type catalog struct {
	Tools        []*mcp.Tool
	Instructions string
	ServerInfo   ServerInfo
	RefreshedAt  int64
}

// ServerInfo is what the server said about itself at initialize.
type ServerInfo struct {
	Name            string `json:"name,omitempty"`
	Title           string `json:"title,omitempty"`
	Version         string `json:"version,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// ProbedAt (Unix ms) is when Cairn last offered server/discover to this server; see
	// LegacyProtocolVersion.
	ProbedAt int64 `json:"probedAt,omitempty"`
	// Resources: the server offers resources (so its tools get a resource_read companion).
	Resources bool `json:"resources,omitempty"`
}

// queryServers runs selectFrom (a SELECT … FROM a table with a server_id column) for
// server id, or for every server when id is "".
func (d db) queryServers(ctx context.Context, selectFrom, id string) (*sql.Rows, error) {
	if id == "" {
		return d.QueryContext(ctx, selectFrom)
	}
	return d.QueryContext(ctx, selectFrom+" WHERE server_id = ?", id)
}

// cache returns the cached catalog; ok is false when the server was never warmed.
func (d db) cache(ctx context.Context, id string) (catalog, bool, error) {
	all, err := d.caches(ctx, id)
	c, ok := all[id]
	return c, ok, err
}

// caches returns the cached catalog of server id, or of every server when id is "":
// start-up reads them all in one query.
func (d db) caches(ctx context.Context, id string) (map[string]catalog, error) {
	rows, err := d.queryServers(ctx, "SELECT server_id, tools, instructions, server_info, refreshed_at FROM mcp_tool_cache", id)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read mcp tool cache")
	}
	defer rows.Close()
	out := map[string]catalog{}
	for rows.Next() {
		var id, toolsJSON, info string
		var c catalog
		if err := rows.Scan(&id, &toolsJSON, &c.Instructions, &info, &c.RefreshedAt); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read mcp tool cache")
		}
		_ = json.Unmarshal([]byte(toolsJSON), &c.Tools)
		_ = json.Unmarshal([]byte(info), &c.ServerInfo)
		out[id] = c
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read mcp tool cache")
	}
	return out, nil
}

func (d db) putCache(ctx context.Context, id string, c catalog) error {
	if c.Tools == nil {
		c.Tools = []*mcp.Tool{}
	}
	tools, err := json.Marshal(c.Tools)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "encode mcp tools")
	}
	info, _ := json.Marshal(c.ServerInfo)
	_, err = d.ExecContext(ctx, `INSERT INTO mcp_tool_cache (server_id, tools, instructions, server_info, refreshed_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT(server_id) DO UPDATE SET tools = excluded.tools,
		instructions = excluded.instructions, server_info = excluded.server_info, refreshed_at = excluded.refreshed_at`,
		id, string(tools), c.Instructions, string(info), c.RefreshedAt)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "write mcp tool cache")
	}
	return nil
}

// savedStatus is a server's last state as recorded in mcp_server_status.
type savedStatus struct {
	State State
	Err   *apperr.Error
	At    int64
}

// statuses reads every recorded status, by server id.
func (d db) statuses(ctx context.Context) (map[string]savedStatus, error) {
	rows, err := d.QueryContext(ctx, "SELECT server_id, state, error, at FROM mcp_server_status")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read mcp server status")
	}
	defer rows.Close()
	out := map[string]savedStatus{}
	for rows.Next() {
		var id, state, errJSON string
		var st savedStatus
		if err := rows.Scan(&id, &state, &errJSON, &st.At); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read mcp server status")
		}
		st.State = State(state)
		if errJSON != "" {
			var ae apperr.Error
			if json.Unmarshal([]byte(errJSON), &ae) == nil && ae.Code != "" {
				st.Err = &ae
			}
		}
		out[id] = st
	}
	return out, rows.Err()
}

// putStatus records a server's state; states worth remembering across processes are the
// failures (recordedState), any other state removes the record.
func (d db) putStatus(ctx context.Context, id string, st savedStatus) error {
	if !recordedState(st.State) {
		_, err := d.ExecContext(ctx, "DELETE FROM mcp_server_status WHERE server_id = ?", id)
		return err
	}
	errJSON := ""
	if st.Err != nil {
		b, _ := json.Marshal(st.Err)
		errJSON = string(b)
	}
	_, err := d.ExecContext(ctx, `INSERT INTO mcp_server_status (server_id, state, error, at) VALUES (?, ?, ?, ?)
		ON CONFLICT(server_id) DO UPDATE SET state = excluded.state, error = excluded.error, at = excluded.at`,
		id, string(st.State), errJSON, st.At)
	return err
}

// recordedState: the states a later process shows before it has tried the server itself.
func recordedState(st State) bool {
	return st == StateError || st == StateFailed || st == StateNeedsSignIn
}
