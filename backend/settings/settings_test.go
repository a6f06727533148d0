package settings

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
)

func newService(t *testing.T) (*Service, *events.Bus, *store.DB) {
	t.Helper()
	db, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bus := events.NewBus()
	return New(db, bus), bus, db
}

func TestDefaults(t *testing.T) {
	s, _, _ := newService(t)
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range Specs() {
		if snap.Values[sp.Key] != sp.Default {
			t.Errorf("%s = %v, want default %v", sp.Key, snap.Values[sp.Key], sp.Default)
		}
	}
}

// TestDefaultsReadLikeAnEmptyDatabase: Defaults answers what a service with nothing
// stored answers, for every int and string setting.
func TestDefaultsReadLikeAnEmptyDatabase(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	for _, sp := range Specs() {
		switch sp.Type {
		case Int:
			if got, want := (Defaults{}).Int(ctx, sp.Key), s.Int(ctx, sp.Key); got != want || got != sp.Default {
				t.Errorf("%s: Defaults %d, service %d, spec %v", sp.Key, got, want, sp.Default)
			}
		case String, Enum:
			if got, want := (Defaults{}).String(ctx, sp.Key), s.String(ctx, sp.Key); got != want || got != sp.Default {
				t.Errorf("%s: Defaults %q, service %q, spec %v", sp.Key, got, want, sp.Default)
			}
		}
	}
}

func TestSetValidates(t *testing.T) {
	tests := []struct {
		key     string
		value   any
		want    any
		errCode apperr.Code
	}{
		{"general.language", "zh-CN", "zh-CN", ""},
		{"general.language", "fr", nil, apperr.SettingChoice},
		{"general.language", 3.0, nil, apperr.SettingChoice},
		{"general.theme", "dark", "dark", ""},
		{"chat.maxToolRounds", "25", 25, ""},
		{"chat.maxToolRounds", 7.0, 7, ""},
		{"chat.maxToolRounds", 7.5, nil, apperr.SettingNotInt},
		{"chat.maxToolRounds", "0", nil, apperr.SettingRange},
		{"chat.maxToolRounds", "101", nil, apperr.SettingRange},
		{"chat.maxToolRounds", "many", nil, apperr.SettingNotInt},
		{"chat.defaultSystemPrompt", true, nil, apperr.SettingNotText},
		{"chat.sendOnEnter", "false", false, ""},
		{"chat.sendOnEnter", "maybe", nil, apperr.SettingNotBool},
		{"no.such.key", "x", nil, apperr.SettingUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			s, _, _ := newService(t)
			ctx := context.Background()
			_, err := s.Set(ctx, tt.key, tt.value)
			if tt.errCode != "" {
				if !apperr.Is(err, tt.errCode) {
					t.Fatalf("err = %v, want %s", err, tt.errCode)
				}
				wantKey := tt.key
				if tt.errCode == apperr.SettingUnknown {
					wantKey = apperr.Quote(tt.key) // not a key of any field: quoted back, as typed
				}
				if p := apperr.From(err).Params; p["key"] != wantKey || p["reason"] == "" {
					t.Fatalf("params %v: the window needs the key and the log a reason", p)
				}
				if tt.errCode == apperr.SettingRange && (apperr.From(err).Params["min"] != "1" || apperr.From(err).Params["max"] != "100") {
					t.Fatalf("range params %v", apperr.From(err).Params)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, tt.key)
			if err != nil || got != tt.want {
				t.Fatalf("get = %v (%T), %v; want %v", got, got, err, tt.want)
			}
		})
	}
}

func TestSetBroadcastsWithSeq(t *testing.T) {
	s, bus, _ := newService(t)
	sub := bus.Subscribe(8)
	defer sub.Close()
	ctx := context.Background()
	snap, err := s.Set(ctx, "general.theme", "dark")
	if err != nil {
		t.Fatal(err)
	}
	ev := <-sub.C
	if ev.Topic != events.TopicSettings || ev.Type != events.TypeSettingsChanged || ev.Seq != snap.Seq || snap.Seq != 1 {
		t.Fatalf("event %+v, snapshot seq %d", ev, snap.Seq)
	}
	again, _ := s.Snapshot(ctx)
	if again.Seq != 1 || again.Values["general.theme"] != "dark" {
		t.Fatalf("snapshot after set: %+v", again)
	}
}

// TestCorruptStoredValueFallsBack: a hand-edited bad value never breaks reading.
func TestCorruptStoredValueFallsBack(t *testing.T) {
	s, _, db := newService(t)
	ctx := context.Background()
	if _, err := db.Exec("INSERT INTO settings(key, value, updated_at) VALUES ('general.theme', '{not json', 0), ('chat.maxToolRounds', '5000', 0)"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Values["general.theme"] != "system" || snap.Values["chat.maxToolRounds"] != 10 {
		t.Fatalf("values %v", snap.Values)
	}
	var raw string
	db.QueryRow("SELECT value FROM settings WHERE key='general.theme'").Scan(&raw)
	if raw != "{not json" {
		t.Fatal("the stored value was rewritten by a read")
	}
	// doctor names both (one not JSON, one out of range); another version's key is not ours.
	if _, err := db.Exec("INSERT INTO settings(key, value, updated_at) VALUES ('future.setting', '{x', 0), ('chat.sendOnEnter', 'false', 0)"); err != nil {
		t.Fatal(err)
	}
	bad, err := s.Unreadable(ctx)
	if err != nil || strings.Join(bad, ",") != "chat.maxToolRounds,general.theme" {
		t.Fatalf("Unreadable = %v, %v", bad, err)
	}
}

func TestDurationSettings(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	if got := s.Duration(ctx, "chat.firstByteTimeout"); got != 120*time.Second {
		t.Fatalf("first-byte default = %v", got)
	}
	if got := s.Duration(ctx, "chat.streamIdleTimeout"); got != 60*time.Second {
		t.Fatalf("idle default = %v", got)
	}
	tests := []struct {
		value   any
		want    time.Duration
		errCode apperr.Code
	}{
		{" 5m ", 5 * time.Minute, ""},
		{"1m30s", 90 * time.Second, ""},
		{"90", 0, apperr.SettingNotDuration},
		{30.0, 0, apperr.SettingNotDuration},
		{"500ms", 0, apperr.SettingRange},
		{"2h", 0, apperr.SettingRange},
	}
	for _, tt := range tests {
		_, err := s.Set(ctx, "chat.streamIdleTimeout", tt.value)
		if tt.errCode != "" {
			if !apperr.Is(err, tt.errCode) || apperr.From(err).Params["key"] != "chat.streamIdleTimeout" {
				t.Errorf("%v: err = %v, want %s", tt.value, err, tt.errCode)
			}
			if tt.errCode == apperr.SettingRange && (apperr.From(err).Params["min"] != "1s" || apperr.From(err).Params["max"] != "1h") {
				t.Errorf("range params %v", apperr.From(err).Params)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.value, err)
		}
		if got := s.Duration(ctx, "chat.streamIdleTimeout"); got != tt.want {
			t.Errorf("%v: read back %v", tt.value, got)
		}
	}
}

// TestRejectedValuesShortened: a huge key or value is quoted back by its beginning and
// length, never whole, in the message and in the parameters.
func TestRejectedValuesShortened(t *testing.T) {
	s, _, _ := newService(t)
	huge := strings.Repeat("x", 100000)
	for _, tc := range []struct{ key, value string }{{huge, "1"}, {"chat.sendOnEnter", huge}} {
		_, err := s.Set(context.Background(), tc.key, tc.value)
		ae := apperr.From(err)
		if ae == nil {
			t.Fatalf("%.20s accepted", tc.key)
		}
		b, _ := json.Marshal(ae)
		if len(b) > 2000 || !strings.Contains(string(b), "100,000 characters") {
			t.Fatalf("error of %d bytes: %.300s", len(b), b)
		}
	}
}
