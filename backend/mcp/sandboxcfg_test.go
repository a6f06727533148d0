package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSandboxAndRootsSettingsAreChecked: bad sandbox folders, domains and roots modes are
// refused with the reason; good ones are stored cleaned.
func TestSandboxAndRootsSettingsAreChecked(t *testing.T) {
	dir := t.TempDir()
	box := func(b ServerSandbox) *ServerSandbox { return &b }
	cases := []struct {
		name string
		s    Server
		want string // "" accepted
	}{
		{"a relative writable folder", Server{Command: "srv", Sandbox: box(ServerSandbox{Enabled: true, Write: []string{"data"}})}, "absolute path"},
		{"a relative read-only folder", Server{Command: "srv", Sandbox: box(ServerSandbox{Enabled: true, Read: []string{"./docs"}})}, "absolute path"},
		{"a URL as a domain", Server{Command: "srv", Sandbox: box(ServerSandbox{Enabled: true, Domains: []string{"https://api.example.com/x"}})}, "not a domain name"},
		{"a domain with a port", Server{Command: "srv", Sandbox: box(ServerSandbox{Enabled: true, Domains: []string{"example.com:443"}})}, "not a domain name"},
		{"a remote server in the sandbox", Server{URL: "https://mcp.example.com/mcp", Sandbox: box(ServerSandbox{Enabled: true})}, "only a stdio server"},
		{"a working directory outside the writable folders", Server{Command: "srv", Cwd: "/opt", Sandbox: box(ServerSandbox{Enabled: true, Write: []string{dir}})}, "working directory"},
		{"a working directory without writable folders", Server{Command: "srv", Cwd: dir, Sandbox: box(ServerSandbox{Enabled: true})}, "working directory"},
		{"an unknown roots mode", Server{Command: "srv", RootsMode: "all"}, "unknown roots mode"},
		{"folders without a folder", Server{Command: "srv", RootsMode: RootsFolders}, "at least one folder"},
		{"a working directory inside a writable folder", Server{Command: "srv", Cwd: filepath.Join(dir, "sub"), Sandbox: box(ServerSandbox{Enabled: true, Write: []string{dir}})}, ""},
		{"folders with a folder", Server{Command: "srv", RootsMode: RootsFolders, Roots: []string{dir}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Name = "x"
			err := c.s.normalize()
			if c.want == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	s := Server{Name: "x", Command: "srv", Sandbox: box(ServerSandbox{Enabled: true, Write: []string{dir + "/", " ", dir},
		Domains: []string{" *.Example.COM. ", "example.com", "api.test"}})}
	if err := s.normalize(); err != nil {
		t.Fatal(err)
	}
	if want := (ServerSandbox{Enabled: true, Write: []string{dir}, Domains: []string{"example.com", "api.test"}}); !reflect.DeepEqual(*s.Sandbox, want) {
		t.Fatalf("cleaned %+v, want %+v", *s.Sandbox, want)
	}
	off := Server{Name: "x", Command: "srv", Sandbox: box(ServerSandbox{})}
	if err := off.normalize(); err != nil || off.Sandbox != nil {
		t.Fatalf("an empty sandbox is kept: %+v %v", off.Sandbox, err)
	}
}

// TestSandboxAndRootsExportImport: the sandbox, the roots mode and the roots are stored,
// exported under Cairn's own keys and imported back the same; an entry without them
// (another client's) leaves them as they are.
func TestSandboxAndRootsExportImport(t *testing.T) {
	w, r, root := t.TempDir(), t.TempDir(), t.TempDir()
	h := newHarness(t, cold)
	ctx := context.Background()
	want := Server{Name: "boxed", Command: "npx", Args: []string{"-y", "some-server"}, Enabled: true,
		Roots: []string{root}, RootsMode: RootsFolders,
		Sandbox: &ServerSandbox{Enabled: true, Write: []string{w}, Read: []string{r}, Domains: []string{"api.example.com"}}}
	v := h.save(want)
	got, _ := h.m.View(ctx, v.ID)
	check := func(what string, s Server) {
		t.Helper()
		if !reflect.DeepEqual(s.Sandbox, want.Sandbox) || s.RootsMode != want.RootsMode || !reflect.DeepEqual(s.Roots, want.Roots) {
			t.Fatalf("%s: sandbox %+v, roots %v (%q)", what, s.Sandbox, s.Roots, s.RootsMode)
		}
	}
	check("saved", got.Server)
	if got.RootsModeInEffect != RootsFolders {
		t.Fatalf("in effect %q", got.RootsModeInEffect)
	}
	exp, err := h.m.Export(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"sandbox"`, `"rootsMode": "folders"`, `"domains"`, w} {
		if !strings.Contains(exp.JSON, key) {
			t.Fatalf("export lacks %s:\n%s", key, exp.JSON)
		}
	}
	other := newHarness(t, cold)
	if rep, err := other.m.Import(ctx, []byte(exp.JSON)); err != nil || rep.Imported != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	snap, _ := other.m.Servers(ctx)
	check("imported", snap.Servers[0].Server)
	plain, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"boxed": map[string]any{"command": "npx", "args": []string{"-y", "some-server"}}}})
	if rep, err := other.m.Import(ctx, plain); err != nil || rep.Unchanged != 1 {
		t.Fatalf("re-import without Cairn's keys: %+v %v", rep, err)
	}
	snap, _ = other.m.Servers(ctx)
	check("kept", snap.Servers[0].Server)
}
