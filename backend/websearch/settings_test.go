package websearch

import (
	"context"
	"slices"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
)

// TestFallbackSettingRefusesUnknownProviders: a fallback chain naming a provider Cairn does
// not have is refused when it is set, through the real settings service, with a code and
// the names as parameters; known names in any spelling and separator are kept as typed.
func TestFallbackSettingRefusesUnknownProviders(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := settings.New(db, events.NewBus(), Specs()...)
	tests := []struct {
		value string
		names string // "" when accepted
	}{
		{"", ""},
		{"brave, tavily", ""},
		{"Brave;SERPER searxng", ""},
		{"brave, googel", `"googel"`},
		{"duckduckgo bingg brave duckduckgo", `"duckduckgo", "bingg"`},
		{"javascript:alert(1)", `"javascript:alert(1)"`},
	}
	for _, tt := range tests {
		_, err := st.Set(ctx, SettingFallback, tt.value)
		if tt.names == "" {
			if err != nil {
				t.Errorf("Set(%q) = %v, want accepted", tt.value, err)
			} else if got := st.String(ctx, SettingFallback); got != tt.value {
				t.Errorf("stored %q, want %q", got, tt.value)
			}
			continue
		}
		e := apperr.From(err)
		if e.Code != apperr.SearchFallbackUnknown || e.Params["names"] != tt.names || e.Params["key"] != SettingFallback {
			t.Errorf("Set(%q) = %v %v, want %s naming %s", tt.value, e.Code, e.Params, apperr.SearchFallbackUnknown, tt.names)
		}
		if known, _ := e.Params["known"].(string); known == "" || !slices.Contains(IDs(), "brave") {
			t.Errorf("Set(%q): known = %q", tt.value, known)
		}
		if got := st.String(ctx, SettingFallback); got == tt.value {
			t.Errorf("Set(%q) was refused but stored", tt.value)
		}
	}
	if got := UnknownFallback("brave nope"); !slices.Equal(got, []string{"nope"}) {
		t.Errorf("UnknownFallback = %v", got)
	}
}
