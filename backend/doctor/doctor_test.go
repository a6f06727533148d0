package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/service"
)

// localesDir holds frontend/src/i18n/locales/<lang>/settings.json, where About's texts live.
const localesDir = "../../frontend/src/i18n/locales"

type aboutTexts struct {
	About struct {
		Detail      map[string]string `json:"detail"`
		KeyringNote map[string]string `json:"keyringNote"`
	} `json:"about"`
}

func readLocales(t *testing.T) map[string]aboutTexts {
	t.Helper()
	langs, err := os.ReadDir(localesDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]aboutTexts{}
	for _, l := range langs {
		raw, err := os.ReadFile(filepath.Join(localesDir, l.Name(), "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc aboutTexts
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", l.Name(), err)
		}
		out[l.Name()] = doc
	}
	if len(out) < 2 {
		t.Fatalf("locales: %v", out)
	}
	return out
}

// TestTextsHaveLocaleTexts: every key a report or the keyring note can carry has a text in
// every locale, and no locale keeps a text for a key that no longer exists.
func TestTextsHaveLocaleTexts(t *testing.T) {
	for lang, doc := range readLocales(t) {
		for _, set := range []struct {
			name  string
			keys  []string
			texts map[string]string
		}{{"about.detail", TextKeys(), doc.About.Detail}, {"about.keyringNote", secrets.NoteKeys(), doc.About.KeyringNote}} {
			for _, k := range set.keys {
				if set.texts[k] == "" {
					t.Errorf("%s: %s.%s is missing", lang, set.name, k)
				}
			}
			for k := range set.texts {
				if !slices.Contains(set.keys, k) {
					t.Errorf("%s: %s.%s is not a key Cairn sends", lang, set.name, k)
				}
			}
		}
	}
}

var placeholder = regexp.MustCompile(`\{\{(\w+)\}\}`)

// TestReportTextsAreComplete: a real report's texts are known keys whose params fill every
// placeholder of their text in every locale, so no window shows "{{path}}".
func TestReportTextsAreComplete(t *testing.T) {
	s, err := service.Open(context.Background(), service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := Run(context.Background(), s, false)
	locales := readLocales(t)
	for _, c := range r.Checks {
		if len(c.Texts) == 0 || c.Detail == "" {
			t.Errorf("%s: no texts or detail: %+v", c.Name, c)
		}
		for _, x := range c.Texts {
			if !slices.Contains(TextKeys(), x.Key) {
				t.Errorf("%s: unknown key %s", c.Name, x.Key)
			}
			for lang, doc := range locales {
				for _, m := range placeholder.FindAllStringSubmatch(doc.About.Detail[x.Key], -1) {
					if _, ok := x.Params[m[1]]; !ok {
						t.Errorf("%s %s: %s has no param %s", lang, c.Name, x.Key, m[1])
					}
				}
			}
		}
	}
	kind, note := s.Secrets.Backend()
	snap, err := s.Secrets.Snapshot(context.Background())
	if err != nil || kind != secrets.BackendFile || note == "" || snap.NoteKey != "forced" {
		t.Fatalf("keyring note: %v %s %q %+v", err, kind, note, snap)
	}
}
