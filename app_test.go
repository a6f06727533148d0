package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
)

// TestServeExposesEveryFacadeMethod keeps the one list honest: every exported method of
// *App (what Wails binds) must be callable over `cairn serve` too.
func TestServeExposesEveryFacadeMethod(t *testing.T) {
	srv, err := server.New(server.Config{Bound: &App{}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range srv.Methods() {
		got[m] = true
	}
	typ := reflect.TypeOf(&App{})
	var missing []string
	for i := 0; i < typ.NumMethod(); i++ {
		if name := typ.Method(i).Name; !got[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("facade methods not callable over serve (bad signature?): %v", missing)
	}
}

// TestFrontendCallsOnlyExistingMethods catches a renamed or misspelt method in the
// frontend's API wrappers before a user does.
func TestFrontendCallsOnlyExistingMethods(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("frontend", "src", "api", "*.ts"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no API wrappers found: %v", err)
	}
	re := regexp.MustCompile(`\.call(?:<[^>]*>)?\(\s*"([A-Za-z]+)"`)
	typ := reflect.TypeOf(&App{})
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".test.ts") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			seen++
			if _, ok := typ.MethodByName(m[1]); !ok {
				t.Errorf("%s calls %q, which *App does not have", f, m[1])
			}
		}
	}
	if seen == 0 {
		t.Fatal("found no calls in the API wrappers; the pattern is out of date")
	}
}

// TestSaveTextFile: the desktop's save goes where the dialog says, private to the user,
// replacing an old file only once the new one is complete; a cancelled dialog saves
// nothing; a failed write or a window without a dialog gives file_save_failed.
func TestSaveTextFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		chooser  func(string) (string, error)
		wantPath string
		wantCode apperr.Code
	}{
		{"saved", func(n string) (string, error) { return filepath.Join(dir, n), nil }, filepath.Join(dir, "mcp.json"), ""},
		{"replaces", func(string) (string, error) { return existing, nil }, existing, ""},
		{"cancelled", func(string) (string, error) { return "", nil }, "", ""},
		{"dialog failed", func(string) (string, error) { return "", errors.New("no portal") }, "", apperr.FileSaveFailed},
		{"unwritable", func(string) (string, error) { return filepath.Join(dir, "missing", "x.json"), nil }, "", apperr.FileSaveFailed},
		{"no dialog (serve)", nil, "", apperr.FileSaveFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &App{ctx: context.Background(), chooseSavePath: tc.chooser}
			path, err := a.SaveTextFile("mcp.json", `{"mcpServers":{}}`)
			if tc.wantCode != "" {
				if !apperr.Is(err, tc.wantCode) || path != "" {
					t.Fatalf("got %q, %v; want %s", path, err, tc.wantCode)
				}
				return
			}
			if err != nil || path != tc.wantPath {
				t.Fatalf("got %q, %v; want %q", path, err, tc.wantPath)
			}
			if path == "" {
				return
			}
			b, err := os.ReadFile(path)
			st, serr := os.Stat(path)
			if err != nil || serr != nil || string(b) != `{"mcpServers":{}}` || st.Mode().Perm() != 0o600 {
				t.Fatalf("file %q mode %v: %v %v", b, st.Mode().Perm(), err, serr)
			}
		})
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

// TestSecretsFacadeOnlyKnownKeys: a window can set and delete the keys Settings → Web
// search lists, never a provider's key (kept with its provider) or MCP's credentials.
func TestSecretsFacadeOnlyKnownKeys(t *testing.T) {
	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := NewApp(ctx, s, false)
	const providerKey = "sk-provider-key-0001"
	if err := s.Secrets.Set(ctx, "provider.p1.apiKey", providerKey); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"provider.p1.apiKey", "mcp.srv.oauth.token", "websearch.tavilly"} {
		if err := a.SetSecret(name, "overwritten-1234"); !apperr.Is(err, apperr.SecretNotKnown) {
			t.Fatalf("SetSecret(%q) = %v, want %s", name, err, apperr.SecretNotKnown)
		}
		if err := a.DeleteSecret(name); !apperr.Is(err, apperr.SecretNotKnown) {
			t.Fatalf("DeleteSecret(%q) = %v, want %s", name, err, apperr.SecretNotKnown)
		}
	}
	if v, ok, err := s.Secrets.Get("provider.p1.apiKey"); err != nil || !ok || v != providerKey {
		t.Fatalf("provider key after refused calls = %q %v %v", v, ok, err)
	}
	if _, ok, _ := s.Secrets.Get("mcp.srv.oauth.token"); ok {
		t.Fatal("a refused SetSecret stored an MCP credential")
	}
	if err := a.SetSecret("websearch.tavily", "tvly-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteSecret("websearch.tavily"); err != nil {
		t.Fatal(err)
	}
}

// TestToolsetsHaveTheirStringsAndIcons: every toolset ListToolsets gives the window has
// its label in every locale and an icon the window draws, so a capability that forgets
// either is caught here, not by a user.
func TestToolsetsHaveTheirStringsAndIcons(t *testing.T) {
	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list := NewApp(ctx, s, false).ListToolsets()
	if len(list) != len(service.Capabilities()) {
		t.Fatalf("%d toolsets for %d capabilities", len(list), len(service.Capabilities()))
	}
	icons, err := os.ReadFile(filepath.Join("frontend", "src", "components", "Icon.tsx"))
	if err != nil {
		t.Fatal(err)
	}
	locales, err := filepath.Glob(filepath.Join("frontend", "src", "i18n", "locales", "*"))
	if err != nil || len(locales) < 2 {
		t.Fatalf("locales %v %v", locales, err)
	}
	for _, ts := range list {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(ts.Icon) + `:`).Match(icons) {
			t.Errorf("toolset %s: icon %q is not in components/Icon.tsx", ts.Name, ts.Icon)
		}
		ns, key, ok := strings.Cut(ts.Label, ":")
		if !ok {
			t.Errorf("toolset %s: label %q names no namespace", ts.Name, ts.Label)
			continue
		}
		for _, dir := range locales {
			if !hasKey(t, filepath.Join(dir, ns+".json"), key) {
				t.Errorf("toolset %s: %s has no %s", ts.Name, filepath.Join(dir, ns+".json"), key)
			}
			// Its Settings page's title and description.
			for _, k := range []string{"title", "description"} {
				if ts.Section != "" && !hasKey(t, filepath.Join(dir, "settings.json"), "sections."+ts.Section+"."+k) {
					t.Errorf("toolset %s: %s has no sections.%s.%s", ts.Name, filepath.Join(dir, "settings.json"), ts.Section, k)
				}
			}
		}
	}
}

func hasKey(t *testing.T, file, dotted string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, k := range strings.Split(dotted, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	s, ok := v.(string)
	return ok && s != ""
}

// TestSaveFileBytes: an export's bytes (a zip) are saved as they are, private to the user.
func TestSaveFileBytes(t *testing.T) {
	dir := t.TempDir()
	a := &App{ctx: context.Background(), chooseSavePath: func(n string) (string, error) { return filepath.Join(dir, n), nil }}
	data := []byte("PK\x03\x04\x00\xff binary")
	path, err := a.SaveFile("all.zip", data)
	if err != nil || path != filepath.Join(dir, "all.zip") {
		t.Fatalf("%q %v", path, err)
	}
	b, err := os.ReadFile(path)
	st, _ := os.Stat(path)
	if err != nil || string(b) != string(data) || st.Mode().Perm() != 0o600 {
		t.Fatalf("file %q %v", b, err)
	}
}
