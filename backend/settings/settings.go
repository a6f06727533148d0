// Package settings holds Cairn's typed, validated settings. Values live in SQLite; every
// change is broadcast as settings:changed so all windows show the same values.
package settings

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
)

// Type is the kind of value a setting holds.
type Type string

// Setting types.
const (
	String Type = "string"
	Bool   Type = "bool"
	Int    Type = "int"
	Enum   Type = "enum"
	// Duration is a Go duration written as text ("90s", "2m"), between MinDuration and
	// MaxDuration.
	Duration Type = "duration"
)

// Spec describes one setting: its type, default and limits, and the settings section
// that shows it.
type Spec struct {
	Key     string   `json:"key"`
	Type    Type     `json:"type"`
	Default any      `json:"default"`
	Enum    []string `json:"enum,omitempty"`
	Min     *int     `json:"min,omitempty"`
	Max     *int     `json:"max,omitempty"`
	MaxLen  int      `json:"maxLen,omitempty"`
	Section string   `json:"section"`
	// MinDuration and MaxDuration bound a duration setting (Go duration text).
	MinDuration string `json:"minDuration,omitempty"`
	MaxDuration string `json:"maxDuration,omitempty"`
	// Check refuses a value that has the right type but that the setting's owner cannot
	// use (a list naming things that do not exist), with a code every locale phrases; it
	// sees the value after its type is checked. Nil accepts every such value.
	Check func(v any) *apperr.Error `json:"-"`
}

func intp(v int) *int { return &v }

// Specs is the list of Cairn's own settings, in display order; a capability's settings
// join them where the service is built (New).
func Specs() []Spec {
	return []Spec{
		{Key: "general.language", Type: Enum, Default: "system", Enum: []string{"system", "en", "zh-CN"}, Section: "general"},
		{Key: "general.theme", Type: Enum, Default: "system", Enum: []string{"system", "light", "dark"}, Section: "general"},
		{Key: "chat.maxToolRounds", Type: Int, Default: 10, Min: intp(1), Max: intp(100), Section: "general"},
		{Key: "chat.defaultSystemPrompt", Type: String, Default: "", MaxLen: 20000, Section: "general"},
		{Key: "chat.sendOnEnter", Type: Bool, Default: true, Section: "general"},
		// How long a provider may take to start answering (generous: local models load
		// first), and how long an answer may pause between chunks.
		{Key: "chat.firstByteTimeout", Type: Duration, Default: "120s", MinDuration: "1s", MaxDuration: "1h", Section: "general"},
		{Key: "chat.streamIdleTimeout", Type: Duration, Default: "60s", MinDuration: "1s", MaxDuration: "1h", Section: "general"},
		// Hosts whose remote images in answers load without a click (space- or
		// comma-separated host names); every other remote image waits for one.
		{Key: "chat.imageHosts", Type: String, Default: "", MaxLen: 4000, Section: "general"},
		// The share of the model's context window (percent) the tool definitions of a
		// request may take before the conversation says so; and the way out it offers:
		// fold every MCP tool behind tool_search, however few or cheap they are.
		{Key: "chat.toolContextShare", Type: Int, Default: 25, Min: intp(1), Max: intp(100), Section: "general"},
		{Key: "chat.foldAllTools", Type: Bool, Default: false, Section: "general"},
		{Key: "permissions.defaultMode", Type: Enum, Default: "default", Enum: []string{"default", "acceptEdits", "auto", "plan", "bypassPermissions"}, Section: "permissions"},
		// Auto mode's classifier: the provider (id or name) and model that judge the calls
		// that would ask, and how long it may take before the call asks the user instead.
		{Key: "permissions.classifierProvider", Type: String, Default: "", MaxLen: 200, Section: "permissions"},
		{Key: "permissions.classifierModel", Type: String, Default: "", MaxLen: 200, Section: "permissions"},
		{Key: "permissions.classifierTimeout", Type: Duration, Default: "5s", MinDuration: "1s", MaxDuration: "60s", Section: "permissions"},
	}
}

// Lookup returns the spec of one of Cairn's own settings.
func Lookup(key string) (Spec, bool) { return lookupIn(Specs(), key) }

func lookupIn(specs []Spec, key string) (Spec, bool) {
	for _, s := range specs {
		if s.Key == key {
			return s, true
		}
	}
	return Spec{}, false
}

// Snapshot is every value with the specs, stamped with the settings topic's seq.
type Snapshot struct {
	Seq    uint64         `json:"seq"`
	Values map[string]any `json:"values"`
	Specs  []Spec         `json:"specs"`
}

// Service reads and writes settings.
type Service struct {
	db    *store.DB
	bus   *events.Bus
	specs []Spec
}

// New returns the settings service over an open database; it knows Specs and the
// capabilities' specs, after them in display order.
func New(db *store.DB, bus *events.Bus, capabilities ...Spec) *Service {
	return &Service{db: db, bus: bus, specs: append(Specs(), capabilities...)}
}

// Specs is every setting this service knows, in display order.
func (s *Service) Specs() []Spec { return slices.Clone(s.specs) }

func (s *Service) lookup(key string) (Spec, bool) { return lookupIn(s.specs, key) }

// Snapshot returns all values (defaults filled in).
func (s *Service) Snapshot(ctx context.Context) (Snapshot, error) {
	seq := s.bus.Seq(events.TopicSettings)
	vals, err := s.values(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Seq: seq, Values: vals, Specs: s.Specs()}, nil
}

func (s *Service) values(ctx context.Context) (map[string]any, error) {
	out := map[string]any{}
	for _, sp := range s.specs {
		out[sp.Key] = sp.Default
	}
	err := s.eachStored(ctx, func(sp Spec, raw string) {
		if v, ok := decodeStored(sp, raw); ok {
			out[sp.Key] = v
		}
	})
	return out, err
}

// Unreadable lists the settings whose stored value cannot be read as its kind (edited by
// hand, written by a newer Cairn): their defaults apply and the rows stay untouched, and
// doctor names them so the user knows why a choice seems forgotten.
func (s *Service) Unreadable(ctx context.Context) ([]string, error) {
	var bad []string
	err := s.eachStored(ctx, func(sp Spec, raw string) {
		if _, ok := decodeStored(sp, raw); !ok {
			bad = append(bad, sp.Key)
		}
	})
	return bad, err
}

// eachStored calls fn for every stored row of a setting this version knows, in key order.
// A setting of an older or newer version is kept in the table and skipped.
func (s *Service) eachStored(ctx context.Context, fn func(sp Spec, raw string)) error {
	rows, err := s.db.QueryContext(ctx, "SELECT key, value FROM settings ORDER BY key")
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "read settings")
	}
	defer rows.Close()
	for rows.Next() {
		var k, raw string
		if err := rows.Scan(&k, &raw); err != nil {
			return apperr.Wrap(err, apperr.Internal, "read settings")
		}
		if sp, ok := s.lookup(k); ok {
			fn(sp, raw)
		}
	}
	return rows.Err()
}

// decodeStored reads a stored value as its setting's kind; false when it cannot be read
// (the default applies, and the row stays for inspection: a read never rewrites it).
func decodeStored(sp Spec, raw string) (any, bool) {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return nil, false
	}
	nv, bad := coerce(sp, v)
	return nv, bad == nil
}

// Get returns one value (the default when unset).
func (s *Service) Get(ctx context.Context, key string) (any, error) {
	sp, ok := s.lookup(key)
	if !ok {
		return nil, s.unknown(key)
	}
	var raw string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return sp.Default, nil
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read setting %s", key)
	}
	if v, ok := decodeStored(sp, raw); ok {
		return v, nil
	}
	return sp.Default, nil
}

// Int returns an int setting, falling back to the default on any problem.
func (s *Service) Int(ctx context.Context, key string) int {
	v, err := s.Get(ctx, key)
	if err != nil {
		sp, _ := s.lookup(key)
		v = sp.Default
	}
	n, _ := v.(int)
	return n
}

// String returns a string or enum setting, falling back to the default on any problem.
func (s *Service) String(ctx context.Context, key string) string {
	v, err := s.Get(ctx, key)
	if err != nil {
		sp, _ := s.lookup(key)
		v = sp.Default
	}
	str, _ := v.(string)
	return str
}

// Bool returns a bool setting, falling back to the default on any problem.
func (s *Service) Bool(ctx context.Context, key string) bool {
	v, err := s.Get(ctx, key)
	if err != nil {
		sp, _ := s.lookup(key)
		v = sp.Default
	}
	b, _ := v.(bool)
	return b
}

// Defaults reads every setting as its spec's default. A component given no settings
// service (a test, a one-off command) uses it, so that a default is written once, in
// Specs, and never repeated where the setting is read.
type Defaults struct{}

// Int returns an int setting's default.
func (Defaults) Int(_ context.Context, key string) int {
	sp, _ := Lookup(key)
	n, _ := sp.Default.(int)
	return n
}

// Bool returns a bool setting's default.
func (Defaults) Bool(_ context.Context, key string) bool {
	sp, _ := Lookup(key)
	b, _ := sp.Default.(bool)
	return b
}

// String returns a string or enum setting's default.
func (Defaults) String(_ context.Context, key string) string {
	sp, _ := Lookup(key)
	str, _ := sp.Default.(string)
	return str
}

// Duration returns a duration setting's default (0 for a key that is not one).
func (Defaults) Duration(ctx context.Context, key string) time.Duration {
	d, _ := time.ParseDuration(Defaults{}.String(ctx, key))
	return d
}

// Duration returns a duration setting, falling back to the default on any problem.
func (s *Service) Duration(ctx context.Context, key string) time.Duration {
	str := s.String(ctx, key)
	d, err := time.ParseDuration(str)
	if err != nil {
		sp, _ := s.lookup(key)
		d, _ = time.ParseDuration(fmt.Sprint(sp.Default))
	}
	return d
}

// Set validates and stores a value, then broadcasts the new snapshot. value may be a typed
// JSON value or, from the CLI, its text form.
func (s *Service) Set(ctx context.Context, key string, value any) (Snapshot, error) {
	sp, ok := s.lookup(key)
	if !ok {
		return Snapshot{}, s.unknown(key)
	}
	v, bad := coerce(sp, value)
	if bad == nil && sp.Check != nil {
		bad = sp.Check(v)
	}
	if bad != nil {
		return Snapshot{}, bad
	}
	raw, _ := json.Marshal(v)
	if _, err := s.db.ExecContext(ctx,
		"INSERT INTO settings(key, value, updated_at) VALUES(?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
		key, string(raw), time.Now().UnixMilli()); err != nil {
		return Snapshot{}, apperr.Wrap(err, apperr.Internal, "write setting %s", key)
	}
	vals, err := s.values(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	ev := s.bus.Publish(events.TopicSettings, events.TypeSettingsChanged, Snapshot{Values: vals, Specs: s.Specs()})
	snap := Snapshot{Seq: ev.Seq, Values: vals, Specs: s.Specs()}
	return snap, nil
}

func (s *Service) unknown(key string) *apperr.Error {
	keys := make([]string, 0)
	for _, sp := range s.specs {
		keys = append(keys, sp.Key)
	}
	sort.Strings(keys)
	return apperr.New(apperr.SettingUnknown, "unknown setting %s (known: %s)", apperr.Quote(key), strings.Join(keys, ", ")).WithParam("key", apperr.Quote(key))
}

// coerce turns v (typed or text) into the setting's type, or says why it cannot with a
// code that every locale can phrase (never an English reason glued into a sentence).
func coerce(sp Spec, v any) (any, *apperr.Error) {
	bad := func(code apperr.Code, reason string, kv ...any) *apperr.Error {
		e := apperr.New(code, "%s: %s", sp.Key, reason).WithParam("key", sp.Key).WithParam("reason", reason)
		for i := 0; i+1 < len(kv); i += 2 {
			e = e.WithParam(kv[i].(string), kv[i+1])
		}
		return e
	}
	switch sp.Type {
	case Bool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b, nil
			}
		}
		return nil, bad(apperr.SettingNotBool, "expected true or false, got "+apperr.Quote(fmt.Sprint(v)))
	case Int:
		var n int
		notInt := bad(apperr.SettingNotInt, "expected a whole number, got "+apperr.Quote(fmt.Sprint(v)))
		switch x := v.(type) {
		case float64:
			if x != float64(int(x)) {
				return nil, notInt
			}
			n = int(x)
		case int:
			n = x
		case json.Number:
			i, err := x.Int64()
			if err != nil {
				return nil, notInt
			}
			n = int(i)
		case string:
			i, err := strconv.Atoi(strings.TrimSpace(x))
			if err != nil {
				return nil, notInt
			}
			n = i
		default:
			return nil, notInt
		}
		if (sp.Min != nil && n < *sp.Min) || (sp.Max != nil && n > *sp.Max) {
			lo, hi := "-∞", "∞"
			if sp.Min != nil {
				lo = strconv.Itoa(*sp.Min)
			}
			if sp.Max != nil {
				hi = strconv.Itoa(*sp.Max)
			}
			return nil, bad(apperr.SettingRange, fmt.Sprintf("must be between %s and %s", lo, hi), "min", lo, "max", hi)
		}
		return n, nil
	case Enum:
		str, ok := v.(string)
		if !ok || !slices.Contains(sp.Enum, str) {
			opts := strings.Join(sp.Enum, ", ")
			return nil, bad(apperr.SettingChoice, "must be one of "+opts, "options", opts)
		}
		return str, nil
	case String:
		str, ok := v.(string)
		if !ok {
			return nil, bad(apperr.SettingNotText, "expected text")
		}
		if sp.MaxLen > 0 && len(str) > sp.MaxLen {
			return nil, bad(apperr.SettingTooLong, fmt.Sprintf("must be at most %d characters", sp.MaxLen), "max", sp.MaxLen)
		}
		return str, nil
	}
	if sp.Type == Duration {
		return coerceDuration(sp, v, bad)
	}
	return nil, bad(apperr.SettingInvalid, "unsupported type "+string(sp.Type))
}

// coerceDuration accepts Go duration text within the spec's bounds and keeps it as typed.
func coerceDuration(sp Spec, v any, bad func(apperr.Code, string, ...any) *apperr.Error) (any, *apperr.Error) {
	str, _ := v.(string)
	str = strings.TrimSpace(str)
	d, err := time.ParseDuration(str)
	if err != nil {
		return nil, bad(apperr.SettingNotDuration, "expected a duration such as 90s or 2m")
	}
	lo, _ := time.ParseDuration(sp.MinDuration)
	hi, _ := time.ParseDuration(sp.MaxDuration)
	if (sp.MinDuration != "" && d < lo) || (sp.MaxDuration != "" && d > hi) {
		return nil, bad(apperr.SettingRange, fmt.Sprintf("must be between %s and %s", sp.MinDuration, sp.MaxDuration),
			"min", sp.MinDuration, "max", sp.MaxDuration)
	}
	return str, nil
}
