package capability

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tools"
)

func ok(name string) Capability {
	return Capability{Name: name, Label: "chat:tools.namespace." + name, Icon: "tool"}
}

// TestCheckFindsClaimsMadeTwice: every mistake a capability can make in the list is named.
func TestCheckFindsClaimsMadeTwice(t *testing.T) {
	withSecret := func(c Capability, n string) Capability { c.Secrets = []string{n}; return c }
	withSetting := func(c Capability, k string) Capability {
		c.Settings = []settings.Spec{{Key: k, Type: settings.Bool, Default: false, Section: "general"}}
		return c
	}
	withCommand := func(c Capability, n string) Capability { c.Commands = []Command{{Name: n}}; return c }
	// withPage gives c a Settings page, and its settings the section specSection.
	withPage := func(c Capability, page, specSection string) Capability {
		c.Section = page
		c.Settings = slices.Clone(c.Settings)
		for i := range c.Settings {
			c.Settings[i].Section = specSection
		}
		return c
	}
	tests := []struct {
		name string
		list List
		want string // "" = sound
	}{
		{"sound", List{ok("web"), withSecret(ok("kb"), "embeddings.apiKey")}, ""},
		{"name with a capital", List{ok("Web")}, "lowercase"},
		{"name with a separator", List{ok("my_web")}, "lowercase"},
		{"name twice", List{ok("web"), ok("web")}, `capability "web" is claimed`},
		{"no icon", List{{Name: "web", Label: "x"}}, "label and an icon"},
		{"secret twice", List{withSecret(ok("web"), "k"), withSecret(ok("kb"), "k")}, `secret "k" is claimed by web and kb`},
		{"setting twice", List{withSetting(ok("web"), "web.x"), withSetting(ok("kb"), "web.x")}, `setting "web.x"`},
		{"one of Cairn's settings", List{withSetting(ok("web"), "general.theme")}, "Cairn's own"},
		{"command twice", List{withCommand(ok("web"), "search"), withCommand(ok("kb"), "search")}, `command "search"`},
		{"own page", List{withPage(withSetting(ok("web"), "web.x"), "web-search", "web-search")}, ""},
		{"page twice", List{withPage(ok("web"), "search", ""), withPage(ok("kb"), "search", "")}, `settings section "search" is claimed by web and kb`},
		{"page of Cairn's", List{withPage(ok("web"), "general", "")}, "not a free lowercase slug"},
		{"page not a slug", List{withPage(ok("web"), "Web Search", "")}, "not a free lowercase slug"},
		{"setting on another page", List{withPage(withSetting(ok("web"), "web.x"), "web-search", "knowledge")}, `neither its page "web-search"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.list.Check()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestDerivedLists: the window's toolsets, the choosable ones and a new session's
// defaults per kind come from the declarations.
func TestDerivedLists(t *testing.T) {
	sandbox := ok("sandbox")
	sandbox.On = Sessions{Task: true}
	mcp := ok("mcp")
	mcp.On = Sessions{Chat: true, Task: true}
	meta := ok("meta")
	meta.Fixed = true
	l := List{ok("web"), sandbox, mcp, meta}
	if got := l.Choosable(); !slices.Equal(got, []string{"web", "sandbox", "mcp"}) {
		t.Fatalf("choosable = %v", got)
	}
	if got := l.Defaults("chat"); !slices.Equal(got, []string{"mcp"}) {
		t.Fatalf("chat defaults = %v", got)
	}
	if got := l.Defaults("task"); !slices.Equal(got, []string{"sandbox", "mcp"}) {
		t.Fatalf("task defaults = %v", got)
	}
	ts := l.Toolsets()
	if len(ts) != 4 || ts[3] != (Toolset{Name: "meta", Label: "chat:tools.namespace.meta", Icon: "tool", Fixed: true}) || !ts[2].Chat || !ts[1].Task || ts[1].Chat {
		t.Fatalf("toolsets = %+v", ts)
	}
}

// TestToolEntriesApplyWithTheToolset: a capability's tool is in its namespace, carries its
// instruction and takes part only where its toolset is on and its own Applies holds.
func TestToolEntriesApplyWithTheToolset(t *testing.T) {
	c := ok("web")
	c.Instruction = "Cite sources."
	run := func(context.Context, struct{}, func(tools.Progress)) (tools.Result, error) {
		return tools.Result{}, nil
	}
	plain := tools.Typed(tools.TypedTool[struct{}]{Name: "web_search", Description: "Search", Run: run})
	vision := tools.Typed(tools.TypedTool[struct{}]{Name: "web_shot", Description: "Screenshot", Run: run,
		Applies: func(s tools.Scope) bool { return s.Model.Vision }})
	es, err := c.ToolEntries([]tools.Entry{plain, vision})
	if err != nil {
		t.Fatal(err)
	}
	on := tools.Scope{Toolsets: []string{"web"}}
	if es[0].Namespace != "web" || es[0].Instruction != "Cite sources." || !es[0].Applies(on) || es[0].Applies(tools.Scope{}) {
		t.Fatalf("entry %+v", es[0])
	}
	if es[1].Applies(on) || !es[1].Applies(tools.Scope{Toolsets: []string{"web"}, Model: tools.ModelCaps{Vision: true}}) {
		t.Fatal("the tool's own Applies is not kept")
	}
	hand := tools.Entry{Name: "web_fetch", Description: "Fetch", InputSchema: []byte(`{"type":"object"}`),
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{}, nil
		}}
	if _, err := c.ToolEntries([]tools.Entry{hand}); err == nil || !strings.Contains(err.Error(), "tools.Typed") {
		t.Fatalf("a hand-written built-in tool was accepted: %v", err)
	}
	if !c.Owns("web") || c.Owns("webx") || !ok("mcp").Owns("mcp:abc") {
		t.Fatal("Owns")
	}
}

type fakeService struct {
	name   string
	closed bool
}

func (s *fakeService) Close() error { s.closed = true; return nil }

// TestOnServiceUsesTheRunningService: a command reuses the service the backend runs, and
// otherwise opens its own and closes it when done; an open that fails runs nothing.
func TestOnServiceUsesTheRunningService(t *testing.T) {
	running := &fakeService{name: "running"}
	var opened *fakeService
	open := func(context.Context, Env) (*fakeService, error) {
		opened = &fakeService{name: "own"}
		return opened, nil
	}
	term := func(v any) Terminal {
		return Terminal{Open: func(context.Context) (Env, error) { return Env{Opened: v}, nil }}
	}
	tests := []struct {
		name   string
		opened any
		want   string
	}{
		{"running", running, "running"},
		{"none yet", nil, "own"},
		{"a typed nil", (*fakeService)(nil), "own"},
		{"another capability's value", "not a service", "own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opened = nil
			var got *fakeService
			if err := OnService(context.Background(), term(tt.opened), open, func(s *fakeService) error { got = s; return nil }); err != nil {
				t.Fatal(err)
			}
			if got.name != tt.want {
				t.Fatalf("ran on %q, want %q", got.name, tt.want)
			}
			if tt.want == "own" && !opened.closed {
				t.Fatal("the command's own service was left open")
			}
		})
	}
	if running.closed {
		t.Fatal("a command closed the running service")
	}
	fail := func(context.Context, Env) (*fakeService, error) { return nil, context.Canceled }
	ran := false
	if err := OnService(context.Background(), term(nil), fail, func(*fakeService) error { ran = true; return nil }); err != context.Canceled || ran {
		t.Fatalf("a failed open: err %v, ran %v", err, ran)
	}
}
