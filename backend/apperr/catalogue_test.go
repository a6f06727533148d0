package apperr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestLocaleParity keeps the catalogue and every locale's errors.json equal, both ways.
func TestLocaleParity(t *testing.T) {
	root := filepath.Join("..", "..", "frontend", "src", "i18n", "locales")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, c := range Codes() {
		want[string(c)] = true
	}
	locales := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		locales++
		b, err := os.ReadFile(filepath.Join(root, d.Name(), "errors.json"))
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		var got map[string]string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s/errors.json: %v", d.Name(), err)
		}
		var missing, extra []string
		for c := range want {
			if got[c] == "" {
				missing = append(missing, c)
			}
		}
		for k := range got {
			if !want[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing) > 0 {
			t.Errorf("%s: codes without a translation: %v", d.Name(), missing)
		}
		if len(extra) > 0 {
			t.Errorf("%s: keys no code uses: %v", d.Name(), extra)
		}
	}
	if locales < 2 {
		t.Fatalf("found %d locales, want at least en and zh-CN", locales)
	}
}

func TestFromAndWrap(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode Code
	}{
		{"plain error falls back to unknown with raw text", os.ErrNotExist, Unknown},
		{"catalogued error passes through", New(ToolNotFound, "x"), ToolNotFound},
		{"uncatalogued code becomes unknown", New(Code("nope"), "x"), Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.err)
			if got.Code != tt.wantCode {
				t.Fatalf("code = %s, want %s", got.Code, tt.wantCode)
			}
			if got.I18nKey != "errors."+string(tt.wantCode) {
				t.Fatalf("key = %s", got.I18nKey)
			}
			if got.Message == "" {
				t.Fatal("empty message")
			}
		})
	}
	w := Wrap(os.ErrPermission, DBOpenFailed, "open")
	if w.Action == nil || w.Action.Target != "general" {
		t.Fatalf("action not taken from the catalogue: %+v", w.Action)
	}
	if !Is(w, DBOpenFailed) || !errorsIs(w, os.ErrPermission) {
		t.Fatal("Is/Unwrap broken")
	}
}
