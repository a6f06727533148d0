package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/server"
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
