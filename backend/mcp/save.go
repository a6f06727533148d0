package mcp

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// change is one server's save, prepared: the row to write and the work for the secret
// store. Save commits one, an import all of its entries at once.
type change struct {
	stored    Server            // the row: secret values emptied
	old       *Server           // the config before, nil for a new server
	writes    map[string]string // secret store name → value to write
	deletes   []string          // secret store names no longer used, removed after the commit
	newSecret bool              // a secret value was written: the server restarts
	warnings  []*apperr.Error   // credentials that could not be moved, a command not found
}

// prepare splits a normalized config into its row and its secret values: credentials
// inside its texts are moved out first (moveCredentials). old is the stored config of the
// same server (nil when it is new).
func (m *Manager) prepare(in Server, old *Server) (change, error) {
	ch := change{old: old, writes: map[string]string{}}
	var stored []string
	if old != nil {
		stored = credentialNames(old.Credentials)
	}
	mv, err := moveCredentials(&in, stored)
	if err != nil {
		return change{}, err
	}
	ch.warnings = mv.warnings
	if w := m.missingCommand(in); w != nil {
		ch.warnings = append(ch.warnings, w)
	}
	want := map[string]bool{}
	in.Credentials = nil
	for _, n := range mv.names {
		in.Credentials = append(in.Credentials, Credential{Name: n})
		want[secretKey(in.ID, "cred", n)] = true
		if v, ok := mv.values[n]; ok {
			ch.writes[secretKey(in.ID, "cred", n)] = v
		}
	}
	for _, kv := range []struct {
		kind string
		vs   []Var
	}{{"env", in.Env}, {"header", in.Headers}} {
		for _, v := range kv.vs {
			if !v.Secret {
				continue
			}
			key := secretKey(in.ID, kv.kind, v.Name)
			want[key] = true
			if v.Value != "" { // empty keeps what is stored
				ch.writes[key] = v.Value
			}
		}
	}
	if len(ch.writes) > 0 && m.secrets == nil {
		return change{}, invalid("secret values cannot be stored: no secret store")
	}
	if old != nil {
		for _, key := range secretKeys(*old) {
			if !want[key] {
				ch.deletes = append(ch.deletes, key)
			}
		}
	}
	ch.stored = in.clone()
	for _, vs := range [][]Var{ch.stored.Env, ch.stored.Headers} {
		for i := range vs {
			if vs[i].Secret {
				vs[i].Value = ""
			}
		}
	}
	ch.newSecret = len(ch.writes) > 0
	return ch, nil
}

// secretKeys names every secret store entry of a config.
func secretKeys(s Server) []string {
	var out []string
	for _, v := range s.Env {
		if v.Secret {
			out = append(out, secretKey(s.ID, "env", v.Name))
		}
	}
	for _, v := range s.Headers {
		if v.Secret {
			out = append(out, secretKey(s.ID, "header", v.Name))
		}
	}
	for _, c := range s.Credentials {
		out = append(out, secretKey(s.ID, "cred", c.Name))
	}
	return out
}

// commit stores changes all or nothing: the secret values first (the secret store keeps
// its index in the same database, so it cannot write inside the transaction), then every
// row in one transaction. When anything fails (a secret, a row, the commit, ctx) the
// transaction rolls back and the secrets written are put back as they were, so nothing of
// the changes remains. Secrets no longer used are removed only after the commit.
func (m *Manager) commit(ctx context.Context, changes []change) error {
	undo := map[string]*string{} // secret name → its value before (nil: there was none)
	err := m.writeSecrets(ctx, changes, undo)
	if err == nil {
		err = m.db.Tx(ctx, func(tx *sql.Tx) error {
			pos, err := m.db.lastPosition(ctx, tx)
			if err != nil {
				return err
			}
			for _, ch := range changes {
				p := int64(-1)
				if ch.old == nil {
					pos++
					p = pos
				}
				if err := m.db.upsertAt(ctx, tx, ch.stored, p); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		m.restoreSecrets(context.WithoutCancel(ctx), undo)
		if ctx.Err() != nil {
			return apperr.Wrap(ctx.Err(), apperr.Canceled, "mcp: saving stopped")
		}
		return err
	}
	for _, ch := range changes {
		for _, key := range ch.deletes {
			if m.secrets != nil {
				_ = m.secrets.Delete(ctx, key)
			}
		}
	}
	return nil
}

func (m *Manager) writeSecrets(ctx context.Context, changes []change, undo map[string]*string) error {
	if m.secrets == nil {
		return nil // prepare refused every change with a secret to write
	}
	for _, ch := range changes {
		for _, key := range slices.Sorted(maps.Keys(ch.writes)) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, seen := undo[key]; !seen {
				prev, ok, err := m.secrets.Get(key)
				if err != nil {
					return err
				}
				undo[key] = nil
				if ok {
					undo[key] = &prev
				}
			}
			if err := m.secrets.Set(ctx, key, ch.writes[key]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *Manager) restoreSecrets(ctx context.Context, undo map[string]*string) {
	for key, prev := range undo {
		var err error
		if prev == nil {
			err = m.secrets.Delete(ctx, key)
		} else {
			err = m.secrets.Set(ctx, key, *prev)
		}
		if err != nil {
			m.log.Warn("mcp: a secret could not be put back after a failed save", "name", key, "err", err)
		}
	}
}

// applyChanges brings the runtime in line with stored changes: new servers get a
// runtime, changed ones restart, the registry is synced once for all of them, every
// server's view is published, and (once the warmer runs) restarted servers warm again.
func (m *Manager) applyChanges(ctx context.Context, changes []change) {
	ids := make([]string, 0, len(changes))
	var warm []string
	for _, ch := range changes {
		if m.applyRuntime(ctx, ch) && ch.stored.Enabled {
			warm = append(warm, ch.stored.ID)
		}
		ids = append(ids, ch.stored.ID)
	}
	if len(ids) == 1 {
		m.syncServer(ctx, ids[0])
	} else {
		m.syncServers(ctx, ids)
	}
	for _, id := range ids {
		m.publishServer(id)
	}
	m.mu.Lock()
	started := m.started
	m.mu.Unlock()
	if started { // the CLI never starts the warmer: an import spawns nothing
		for _, id := range warm {
			m.requestRefresh(id)
		}
	}
}

// applyRuntime updates one server's runtime config and reports whether it restarted.
func (m *Manager) applyRuntime(ctx context.Context, ch change) bool {
	cfg, old := ch.stored, ch.old
	m.mu.Lock()
	s := m.servers[cfg.ID]
	if s == nil {
		s = m.newServer(cfg)
		m.servers[cfg.ID] = s
	}
	m.mu.Unlock()
	restart := ch.newSecret || old == nil || !runtimeEqual(*old, cfg) || old.Enabled != cfg.Enabled
	if old != nil && old.URL != cfg.URL {
		m.forgetSignIn(ctx, cfg.ID) // a token is only ever sent to the URL it was issued for
	}
	s.mu.Lock()
	s.cfg = cfg.clone()
	s.mu.Unlock()
	if restart {
		st := StateIdle
		if !cfg.Enabled {
			st = StateDisabled
		}
		s.stop(st, nil)
		s.mu.Lock()
		s.restarts = 0
		s.mu.Unlock()
	}
	return restart
}

// syncServers is syncServer for many servers with two queries and one registry update.
func (m *Manager) syncServers(ctx context.Context, ids []string) {
	m.mu.Lock()
	reg := m.reg
	m.mu.Unlock()
	if reg == nil || len(ids) == 0 {
		return
	}
	cats, err := m.db.caches(ctx, "")
	if err != nil {
		return
	}
	prefs, err := m.prefs.All(ctx)
	if err != nil {
		return
	}
	byNS := make(map[string][]tools.Entry, len(ids))
	for _, id := range ids {
		s, err := m.get(id)
		cat, cached := cats[id]
		if err != nil || !s.config().Enabled || !cached {
			byNS[tools.MCPNamespace(id)] = nil
			continue
		}
		byNS[tools.MCPNamespace(id)] = m.entries(s.config(), cat, prefs[id])
	}
	for ns, err := range reg.ReplaceNamespaces(byNS) {
		id := strings.TrimPrefix(ns, tools.MCPNamespacePrefix)
		if s, e := m.get(id); e == nil {
			s.log.Eventf("some tools could not be offered to the model: %v", err)
		}
		m.log.Warn("mcp: registry sync failed", "server", id, "err", err)
	}
}
