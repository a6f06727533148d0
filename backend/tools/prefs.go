package tools

import (
	"context"
	"database/sql"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// TopicTools carries changes of the tool list and of the user's per-tool switches.
const TopicTools = "tools"

// TypePrefsChanged announces that a tool was turned on or off.
const TypePrefsChanged = "tools:prefs"

// Prefs are the user's per-tool switches (Settings → Tools), stored in SQLite and applied
// to every request by the pipeline.
type Prefs struct {
	db  *sql.DB
	bus *events.Bus
}

// NewPrefs returns the switches over the application database.
func NewPrefs(db *sql.DB, bus *events.Bus) *Prefs { return &Prefs{db: db, bus: bus} }

// Disabled is the set of wire names the user turned off.
func (p *Prefs) Disabled(ctx context.Context) (map[string]bool, error) {
	rows, err := p.db.QueryContext(ctx, "SELECT name FROM tool_prefs WHERE enabled = 0")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read tool switches")
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read tool switches")
		}
		out[n] = true
	}
	return out, rows.Err()
}

// SetEnabled turns one tool on or off and tells every window.
func (p *Prefs) SetEnabled(ctx context.Context, name string, enabled bool) error {
	if !ValidWireName(name) {
		return apperr.New(apperr.ToolNotFound, "no tool %q", name).WithParam("name", name)
	}
	on := 0
	if enabled {
		on = 1
	}
	if _, err := p.db.ExecContext(ctx,
		"INSERT INTO tool_prefs(name, enabled, updated_at) VALUES(?, ?, ?) ON CONFLICT(name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
		name, on, time.Now().UnixMilli()); err != nil {
		return apperr.Wrap(err, apperr.Internal, "store tool switch")
	}
	p.bus.Publish(TopicTools, TypePrefsChanged, map[string]any{"name": name, "enabled": enabled})
	return nil
}

// ToolState is one row of Settings → Tools.
type ToolState struct {
	Info
	Enabled bool `json:"enabled"`
}

// ToolsSnapshot is the Tools panel's content, stamped with the tools topic's seq.
type ToolsSnapshot struct {
	Seq   uint64      `json:"seq"`
	Tools []ToolState `json:"tools"`
}

// Snapshot lists every registered tool with its switch.
func (p *Prefs) Snapshot(ctx context.Context, reg *Registry) (ToolsSnapshot, error) {
	seq := p.bus.Seq(TopicTools)
	off, err := p.Disabled(ctx)
	if err != nil {
		return ToolsSnapshot{}, err
	}
	infos := reg.List()
	out := ToolsSnapshot{Seq: seq, Tools: make([]ToolState, 0, len(infos))}
	for _, in := range infos {
		out.Tools = append(out.Tools, ToolState{Info: in, Enabled: !off[in.Name]})
	}
	return out, nil
}
