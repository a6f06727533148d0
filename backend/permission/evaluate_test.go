package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var (
	readTool   = Tool{Name: "web_search", Namespace: "web", ReadOnly: true}
	writeTool  = Tool{Name: "sandbox_write", Namespace: "sandbox", Edits: true}
	deleteTool = Tool{Name: "sandbox_delete", Namespace: "sandbox", Destructive: true}
	gatedRead  = Tool{Name: "mcp__mail__read_0123", Namespace: "mcp:mail", ReadOnly: true, Approval: ApprovalAsk}
	mcpWrite   = Tool{Name: "mcp__fs__write_file_0123", Namespace: "mcp:fs"}
)

func pathArgs(p string) Targets {
	b, _ := json.Marshal(map[string]string{"path": p})
	return Extract(b)
}

func TestModes(t *testing.T) {
	inside, outside := pathArgs("notes/a.md"), pathArgs("/etc/hosts")
	bashLs := Targets{Commands: []string{"ls"}}
	tests := []struct {
		name    string
		tool    Tool
		targets Targets
		want    map[Mode]Behavior
	}{
		{"read-only tool", readTool, Targets{}, map[Mode]Behavior{ModeDefault: Allow, ModeAuto: Allow, ModeAcceptEdits: Allow, ModePlan: Allow, ModeBypass: Allow}},
		{"edit inside the workspace", writeTool, inside, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Allow, ModePlan: Deny, ModeBypass: Allow}},
		{"edit outside the workspace", writeTool, outside, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"edit escaping with ..", writeTool, pathArgs("../../etc/hosts"), map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"edit without a path", writeTool, Targets{}, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"destructive tool inside", deleteTool, inside, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"shell is not an edit", bash, bashLs, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"MCP write is not an edit", mcpWrite, inside, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"read-only but gated", gatedRead, Targets{}, map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Ask, ModeBypass: Allow}},
	}
	for _, tt := range tests {
		for _, m := range Modes() {
			v := Evaluate(Input{Tool: tt.tool, Targets: tt.targets, Mode: m, Resolver: Resolver{Workspace: ws}})
			if v.Behavior != tt.want[m] {
				t.Errorf("%s in %s: %s (%s), want %s", tt.name, m, v.Behavior, v.Reason, tt.want[m])
			}
			if v.Source != SourceConfig || v.Reason == "" || !slices.Contains(ReasonCodes(), v.ReasonCode) {
				t.Errorf("%s in %s: source %q reason %q code %q", tt.name, m, v.Source, v.Reason, v.ReasonCode)
			}
		}
	}
	// Plan mode tells the model what to do instead.
	v := Evaluate(Input{Tool: writeTool, Mode: ModePlan})
	if v.Behavior != Deny || !strings.Contains(v.Reason, "plan mode") {
		t.Fatalf("plan refusal: %+v", v)
	}
	// An unknown mode is treated as default.
	if v := Evaluate(Input{Tool: writeTool, Mode: "yolo"}); v.Behavior != Ask {
		t.Fatalf("unknown mode: %+v", v)
	}
}

func TestRulesAcrossModes(t *testing.T) {
	denyWrite := Rule{ID: "d", Behavior: Deny, Tool: "sandbox_write", Source: SourceConfig}
	askRead := Rule{ID: "a", Behavior: Ask, Tool: "web_*", Source: SourceConfig}
	allowWrite := Rule{ID: "w", Behavior: Allow, Tool: "sandbox", Source: SourceUserPermanent}
	tests := []struct {
		name  string
		tool  Tool
		rules []Rule
		hook  *Hook
		want  map[Mode]Behavior
	}{
		{"deny holds in every mode", writeTool, []Rule{denyWrite, allowWrite}, nil,
			map[Mode]Behavior{ModeDefault: Deny, ModeAuto: Deny, ModeAcceptEdits: Deny, ModePlan: Deny, ModeBypass: Deny}},
		{"deny beats a hook's allow", writeTool, []Rule{denyWrite}, &Hook{Behavior: Allow},
			map[Mode]Behavior{ModeDefault: Deny, ModeAuto: Deny, ModeAcceptEdits: Deny, ModePlan: Deny, ModeBypass: Deny}},
		{"ask rule asks except in bypass", readTool, []Rule{askRead}, nil,
			map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Ask, ModeBypass: Allow}},
		{"allow rule by namespace, not in plan", writeTool, []Rule{allowWrite}, nil,
			map[Mode]Behavior{ModeDefault: Allow, ModeAuto: Allow, ModeAcceptEdits: Allow, ModePlan: Deny, ModeBypass: Allow}},
		{"ask beats allow", readTool, []Rule{askRead, {ID: "x", Behavior: Allow, Tool: "*", Source: SourceConfig}}, nil,
			map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Ask, ModeBypass: Allow}},
		{"hook allow", writeTool, nil, &Hook{Behavior: Allow},
			map[Mode]Behavior{ModeDefault: Allow, ModeAuto: Allow, ModeAcceptEdits: Allow, ModePlan: Deny, ModeBypass: Allow}},
		{"hook ask on a read-only tool", readTool, nil, &Hook{Behavior: Ask},
			map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Ask, ModeBypass: Allow}},
		{"other session's rule is ignored", writeTool, []Rule{{ID: "o", Behavior: Allow, Tool: "*", SessionID: "s2", Source: SourceUserTemporary}}, nil,
			map[Mode]Behavior{ModeDefault: Ask, ModeAuto: Ask, ModeAcceptEdits: Ask, ModePlan: Deny, ModeBypass: Allow}},
		{"own session's rule applies", writeTool, []Rule{{ID: "o", Behavior: Allow, Tool: "*", SessionID: "s1", Source: SourceUserTemporary}}, nil,
			map[Mode]Behavior{ModeDefault: Allow, ModeAuto: Allow, ModeAcceptEdits: Allow, ModePlan: Deny, ModeBypass: Allow}},
	}
	for _, tt := range tests {
		for _, m := range Modes() {
			v := Evaluate(Input{Tool: tt.tool, Mode: m, Rules: tt.rules, Hook: tt.hook, SessionID: "s1"})
			if v.Behavior != tt.want[m] {
				t.Errorf("%s in %s: %s (%s), want %s", tt.name, m, v.Behavior, v.Reason, tt.want[m])
			}
		}
	}
	// Sources follow what decided.
	if v := Evaluate(Input{Tool: writeTool, Rules: []Rule{allowWrite}}); v.Source != SourceUserPermanent || v.RuleID != "w" {
		t.Fatalf("rule source: %+v", v)
	}
	if v := Evaluate(Input{Tool: writeTool, Hook: &Hook{Behavior: Allow}}); v.Source != SourceHook {
		t.Fatalf("hook source: %+v", v)
	}
}

func TestToolGlobs(t *testing.T) {
	gh := Tool{Name: "mcp__gitHub__createIssue_0123456789abcdef0123", Namespace: "mcp:gh-1"}
	tests := []struct {
		glob string
		tool Tool
		want bool
	}{
		{"*", gh, true},
		{"mcp:*", gh, true},
		{"mcp:gh-1", gh, true},
		{"mcp:gh-2", gh, false},
		{"mcp__gitHub__*", gh, true},
		{"mcp__gitHub__createIssue_*", gh, true},
		{"mcp__slack__*", gh, false},
		{"sandbox_*", writeTool, true},
		{"sandbox", writeTool, true},
		{"sandbox_write", writeTool, true},
		{"sandbox_writ", writeTool, false},
		{"web_{search,fetch}", readTool, true},
	}
	for _, tt := range tests {
		c := compile(Rule{Behavior: Deny, Tool: tt.glob}, Resolver{})
		if got := c.matchesTool(tt.tool); got != tt.want {
			t.Errorf("%q on %s: %v", tt.glob, tt.tool.Name, got)
		}
	}
}

// TestMCPAllowIsBoundToTheFingerprint: an always-allow made for one version of an MCP
// tool stops applying when its schema or server changes.
func TestMCPAllowIsBoundToTheFingerprint(t *testing.T) {
	rule := SuggestRules(Tool{Name: mcpWrite.Name, Namespace: mcpWrite.Namespace, Fingerprint: "fp-1"}, Targets{})[0]
	rule.ID, rule.Source = "r1", SourceUserPermanent
	same, changed := mcpWrite, mcpWrite
	same.Fingerprint, changed.Fingerprint = "fp-1", "fp-2"
	if v := Evaluate(Input{Tool: same, Rules: []Rule{rule}}); v.Behavior != Allow || v.Source != SourceUserPermanent {
		t.Fatalf("same tool: %+v", v)
	}
	v := Evaluate(Input{Tool: changed, Rules: []Rule{rule}})
	if v.Behavior != Ask || !slices.Equal(v.Stale, []string{"r1"}) || !strings.Contains(v.Reason, "changed") {
		t.Fatalf("changed tool: %+v", v)
	}
}

func TestPathRules(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	wsDir := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(wsDir, "src"), outside, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// ws/linkdir → ../outside; alias → ws (a second name for the workspace).
	if err := os.Symlink(outside, filepath.Join(wsDir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(wsDir, filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	res := Resolver{Workspace: wsDir, Home: filepath.Join(root, "home")}
	allowSrc := Rule{ID: "a", Behavior: Allow, Tool: "sandbox_write", Path: "src/**", Source: SourceConfig}
	denyOutside := Rule{ID: "d", Behavior: Deny, Path: filepath.Join(outside, "**"), Source: SourceConfig}
	denyEnv := Rule{ID: "e", Behavior: Deny, Path: "**/.env", Source: SourceConfig}
	denyHome := Rule{ID: "h", Behavior: Deny, Path: "~/.ssh/**", Source: SourceConfig}
	allowAlias := Rule{ID: "l", Behavior: Allow, Tool: "sandbox_write", Path: filepath.Join(root, "alias", "docs", "**"), Source: SourceConfig}
	rules := []Rule{allowSrc, denyOutside, denyEnv, denyHome, allowAlias}
	tests := []struct {
		path string
		want Behavior
	}{
		{"src/main.go", Allow},
		{"src/deep/er/x.go", Allow},
		{filepath.Join(wsDir, "src", "x.go"), Allow},
		{"./src/../src/x.go", Allow},
		{"src/../../outside/x", Deny}, // `..` resolved before matching
		{"src/../README.md", Ask},     // inside the workspace, not under src
		{"linkdir/x", Deny},           // the symlink leads outside
		// `..` after a symlink goes up from its target (ws/src/x), but a tool that cleans the
		// path first (Node's path.resolve) goes to ws/ws/src/x: both must be allowed.
		{"linkdir/../ws/src/x", Ask},
		{"src/.env", Deny},
		{"/somewhere/else/.env", Deny},
		{"~/.ssh/id_ed25519", Deny},
		{"docs/readme.md", Allow}, // allowed through the alias of the workspace
		{"/etc/hosts", Ask},
	}
	for _, tt := range tests {
		v := Evaluate(Input{Tool: writeTool, Targets: pathArgs(tt.path), Rules: rules, Resolver: res})
		if v.Behavior != tt.want {
			t.Errorf("%q: %s (%s), want %s", tt.path, v.Behavior, v.Reason, tt.want)
		}
	}
	// acceptEdits follows the real location too.
	for p, want := range map[string]Behavior{"src/x.go": Allow, "linkdir/x": Ask, "../outside/x": Ask, "notes.md": Allow,
		"linkdir/../secret": Ask, // lexically ws/secret, really <root>/secret
	} {
		if v := Evaluate(Input{Tool: writeTool, Targets: pathArgs(p), Mode: ModeAcceptEdits, Resolver: res}); v.Behavior != want {
			t.Errorf("acceptEdits %q: %s, want %s", p, v.Behavior, want)
		}
	}
	// An allow needs every path to match; a deny needs one.
	two := Targets{Paths: []string{"src/a.go", "README.md"}}
	if v := Evaluate(Input{Tool: writeTool, Targets: two, Rules: []Rule{allowSrc}, Resolver: res}); v.Behavior != Ask {
		t.Fatalf("partial allow: %+v", v)
	}
	two.Paths[1] = "linkdir/y"
	if v := Evaluate(Input{Tool: writeTool, Targets: two, Rules: []Rule{allowSrc, denyOutside}, Resolver: res}); v.Behavior != Deny {
		t.Fatalf("one denied path: %+v", v)
	}
	// A redirection is a path too: deny rules see it.
	cmd := Targets{Commands: []string{"echo x > linkdir/file"}}
	if v := Evaluate(Input{Tool: bash, Targets: cmd, Rules: []Rule{denyOutside, {ID: "e", Behavior: Allow, Command: "echo"}}, Resolver: res}); v.Behavior != Deny {
		t.Fatalf("redirect into a denied folder: %+v", v)
	}
	// Without a workspace relative paths cannot be allowed by path, but deny still sees them.
	noWS := Resolver{}
	if v := Evaluate(Input{Tool: writeTool, Targets: pathArgs("src/x"), Rules: []Rule{allowSrc}, Resolver: noWS}); v.Behavior != Ask {
		t.Fatalf("no workspace allow: %+v", v)
	}
	if v := Evaluate(Input{Tool: writeTool, Targets: pathArgs("src/x"), Rules: []Rule{{ID: "x", Behavior: Deny, Path: "src/**"}}, Resolver: noWS}); v.Behavior != Deny {
		t.Fatalf("no workspace deny: %+v", v)
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	a := filepath.Join(root, "a")
	if err := os.MkdirAll(filepath.Join(a, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a/b", filepath.Join(root, "rel")); err != nil { // relative target
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "loop2"), filepath.Join(root, "loop1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "loop1"), filepath.Join(root, "loop2")); err != nil {
		t.Fatal(err)
	}
	r := Resolver{Workspace: root, Home: "/home/u"}
	tests := []struct{ raw, abs, real string }{
		{"a/b/c.txt", filepath.Join(a, "b", "c.txt"), filepath.Join(a, "b", "c.txt")},
		{"rel/new/file", filepath.Join(root, "rel", "new", "file"), filepath.Join(a, "b", "new", "file")},
		{"rel/..", root, a}, // the OS goes up from a/b
		{"loop1/x", filepath.Join(root, "loop1", "x"), filepath.Join(root, "loop1", "x")},
		{"~/x", "/home/u/x", "/home/u/x"},
	}
	for _, tt := range tests {
		ps := r.Resolve(tt.raw)
		if len(ps) == 0 || ps[0].Abs != tt.abs || ps[0].Real != tt.real {
			t.Errorf("%q: %+v, want abs %q real %q", tt.raw, ps, tt.abs, tt.real)
		}
	}
	if ps := (Resolver{}).Resolve("x/y"); len(ps) != 1 || !ps[0].Unresolved || ps[0].Abs != "" || ps[0].Real != "" {
		t.Fatalf("relative without workspace: %+v", ps)
	}
}

func TestExtract(t *testing.T) {
	tests := []struct {
		args string
		want Targets
	}{
		{`{"command":"ls -la","cwd":"sub","timeout":5}`, Targets{Commands: []string{"ls -la"}, Cwd: "sub"}},
		{`{"file_path":"/a/b","content":"see https://x.example/y"}`, Targets{Paths: []string{"/a/b"}}},
		{`{"url":"https://example.com","note":"http://other.example"}`, Targets{URLs: []string{"http://other.example", "https://example.com"}}},
		{`{"edits":[{"path":"a.go"},{"path":"b.go"}],"to":"fr"}`, Targets{Paths: []string{"a.go", "b.go"}}},
		{`{"source":"./in.txt","destination":"~/out.txt","from":"Alice"}`, Targets{Paths: []string{"~/out.txt", "./in.txt"}}},
		{`{"Target-Path":"x"}`, Targets{Paths: []string{"x"}}},
		// A folder moved away by its bare name is a path; so is a file:// URL anywhere.
		{`{"source":"protected","destination":"My Docs"}`, Targets{Paths: []string{"My Docs", "protected"}}},
		{`{"uri":"file:///ws/protected/x"}`, Targets{Paths: []string{"file:///ws/protected/x"}, URLs: []string{"file:///ws/protected/x"}}},
		{`{"resource":"FILE:///ws/x","note":"file:///y"}`, Targets{Paths: []string{"file:///y", "FILE:///ws/x"}}},
		// As sent: a newline or spaces in a path are part of the name the tool opens.
		{`{"path":"protected/x\ny"}`, Targets{Paths: []string{"protected/x\ny"}}},
		{`{"path":" protected/x"}`, Targets{Paths: []string{" protected/x"}}},
		// Names ending like a path key count when the value looks like a path.
		{`{"folder_path":"protected/x","target_dir":"~/x","profile":"default"}`, Targets{Paths: []string{"protected/x", "~/x"}}},
		// A second working directory is a place the call touches.
		{`{"cwd":"a","opts":{"workdir":"protected"}}`, Targets{Paths: []string{"protected"}, Cwd: "a"}},
		{strings.Repeat(`{"a":`, 20) + `{"path":"x"}` + strings.Repeat(`}`, 20), Targets{Deep: true}},
		{`not json`, Targets{}},
		{``, Targets{}},
	}
	for _, tt := range tests {
		got := Extract(json.RawMessage(tt.args))
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(tt.want)
		if string(g) != string(w) {
			t.Errorf("%s: %s, want %s", tt.args, g, w)
		}
	}
}

func TestRuleValidate(t *testing.T) {
	bad := []Rule{
		{Behavior: "maybe", Tool: "x"},
		{Behavior: Allow},
		{Behavior: Deny, Tool: "["},
		{Behavior: Deny, Path: "a/[b"},
		{Behavior: Deny, Tool: "x", Source: "someone"},
		{Behavior: Deny, Tool: "x", Fingerprint: "fp"},
	}
	for _, r := range bad {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	good := []Rule{
		{Behavior: Allow, Tool: "*"},
		{Behavior: Deny, Path: "**/.env", Source: SourceConfig},
		{Behavior: Ask, Tool: "mcp:*", Command: "git push"},
		{Behavior: Allow, Tool: "mcp__x__y_0", Fingerprint: "fp", Source: SourceUserPermanent},
	}
	for _, r := range good {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}

func TestIsEditTool(t *testing.T) {
	for tool, want := range map[Tool]bool{
		writeTool: true,
		{Name: "file_patch", Namespace: "file", Edits: true}: true,
		// The name says nothing: a tool that does not say its call edits is no edit.
		{Name: "sandbox_multi_edit", Namespace: "sandbox"}:                        false,
		{Name: "sandbox_read", Namespace: "sandbox", ReadOnly: true, Edits: true}: false,
		{Name: "mcp__fs__write_0123", Namespace: "mcp:fs", Edits: true}:           false,
		bash:       false,
		deleteTool: false,
		mcpWrite:   false,
	} {
		if IsEditTool(tool) != want {
			t.Errorf("%s: %v", tool.Name, !want)
		}
	}
}

// TestReasonCodes: every verdict names its reason with a catalogued code (the windows
// translate approval.reasons.<code>), with the parameters its text needs.
func TestReasonCodes(t *testing.T) {
	tests := []struct {
		name   string
		in     Input
		code   string
		params map[string]string
	}{
		{"needs approval", Input{Tool: gatedRead}, "needs_approval", nil},
		{"destructive", Input{Tool: deleteTool}, "destructive", nil},
		{"can change", Input{Tool: writeTool}, "can_change", nil},
		{"read-only", Input{Tool: readTool}, "read_only", nil},
		{"never ask", Input{Tool: Tool{Name: mcpWrite.Name, Namespace: mcpWrite.Namespace, Approval: ApprovalAllow}}, "tool_allowed", nil},
		{"server says read-only", Input{Tool: Tool{Name: "mcp__fs__list", Namespace: "mcp:srv1", ReadOnly: true}}, "server_read_only", nil},
		{"plan", Input{Tool: writeTool, Mode: ModePlan}, "plan_mode", nil},
		{"bypass", Input{Tool: writeTool, Mode: ModeBypass}, "bypass", nil},
		{"hidden command", Input{Tool: bash, Targets: Targets{Commands: []string{"echo $(cat ~/.ssh/id_rsa)"}}}, "command_hides", map[string]string{"constructs": ""}},
		{"plain command", Input{Tool: bash, Targets: Targets{Commands: []string{"git status"}}}, "command_not_allowed", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Resolver = Resolver{Workspace: ws}
			v := Evaluate(tt.in)
			if v.ReasonCode != tt.code {
				t.Fatalf("code %q (%s), want %q", v.ReasonCode, v.Reason, tt.code)
			}
			for k := range tt.params {
				if v.ReasonParams[k] == "" {
					t.Fatalf("param %q missing: %v", k, v.ReasonParams)
				}
			}
		})
	}
}

// TestApprovalChoice: a tool's approval choice in every mode. "Never ask" lets a tool
// that can change things run unasked (the defaults step asked anyway before), but no
// further than the defaults: deny and ask rules and plan mode still hold. "Ask" asks
// even for a read-only tool; the default asks unless the tool is read-only.
func TestApprovalChoice(t *testing.T) {
	denyRule := Rule{ID: "d", Tool: mcpWrite.Name, Behavior: Deny, Source: SourceConfig}
	askRule := Rule{ID: "a", Tool: mcpWrite.Name, Behavior: Ask, Source: SourceConfig}
	tests := []struct {
		name     string
		approval Approval
		readOnly bool
		mode     Mode
		rules    []Rule
		want     Behavior
		code     string
	}{
		{"default, can change", ApprovalDefault, false, ModeDefault, nil, Ask, "destructive"},
		{"default, read-only", ApprovalDefault, true, ModeDefault, nil, Allow, "server_read_only"},
		{"ask, read-only", ApprovalAsk, true, ModeDefault, nil, Ask, "needs_approval"},
		{"ask, can change", ApprovalAsk, false, ModeDefault, nil, Ask, "needs_approval"},
		{"allow, can change", ApprovalAllow, false, ModeDefault, nil, Allow, "tool_allowed"},
		{"allow, read-only", ApprovalAllow, true, ModeDefault, nil, Allow, "tool_allowed"},
		{"allow, acceptEdits", ApprovalAllow, false, ModeAcceptEdits, nil, Allow, "tool_allowed"},
		{"allow, plan mode refuses", ApprovalAllow, false, ModePlan, nil, Deny, "plan_mode"},
		{"allow, a deny rule holds", ApprovalAllow, false, ModeDefault, []Rule{denyRule}, Deny, "rule_denies"},
		{"allow, an ask rule holds", ApprovalAllow, false, ModeDefault, []Rule{askRule}, Ask, "rule_asks"},
		{"ask, bypass", ApprovalAsk, false, ModeBypass, nil, Allow, "bypass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := Tool{Name: mcpWrite.Name, Namespace: mcpWrite.Namespace, ReadOnly: tt.readOnly, Destructive: !tt.readOnly, Approval: tt.approval}
			v := Evaluate(Input{Tool: tool, Mode: tt.mode, Rules: tt.rules, Resolver: Resolver{Workspace: ws}})
			if v.Behavior != tt.want || v.ReasonCode != tt.code {
				t.Fatalf("%s %s (%s), want %s %s", v.Behavior, v.ReasonCode, v.Reason, tt.want, tt.code)
			}
		})
	}
}

// TestAutoClassify: in auto mode only the defaults' asks about a call that stays inside
// the workspace may go to the classifier; rules, hooks, a tool that always asks,
// destructive tools and places outside the workspace stay with the user.
func TestAutoClassify(t *testing.T) {
	askRule := Rule{ID: "a", Behavior: Ask, Tool: "sandbox_write", Source: SourceConfig}
	tests := []struct {
		name     string
		tool     Tool
		targets  Targets
		rules    []Rule
		hook     *Hook
		classify bool
		code     string
	}{
		{"edit inside", writeTool, pathArgs("notes/a.md"), nil, nil, true, "can_change"},
		{"no path", mcpWrite, Targets{}, nil, nil, true, "can_change"},
		{"plain command", bash, Targets{Commands: []string{"ls"}}, nil, nil, true, "command_not_allowed"},
		{"edit outside", writeTool, pathArgs("/etc/hosts"), nil, nil, false, ReasonOutsideWorkspace},
		{"escaping with ..", writeTool, pathArgs("../../etc/hosts"), nil, nil, false, ReasonOutsideWorkspace},
		{"redirect outside", bash, Targets{Commands: []string{"echo x > /etc/passwd"}}, nil, nil, false, ReasonOutsideWorkspace},
		{"destructive", deleteTool, pathArgs("notes/a.md"), nil, nil, false, "destructive"},
		{"always asks", gatedRead, Targets{}, nil, nil, false, "needs_approval"},
		{"ask rule", writeTool, pathArgs("notes/a.md"), []Rule{askRule}, nil, false, "rule_asks"},
		{"hook asks", writeTool, pathArgs("notes/a.md"), nil, &Hook{Behavior: Ask}, false, "hook_asks"},
		{"hidden command", bash, Targets{Commands: []string{"echo $(cat x)"}}, nil, nil, false, "command_hides"},
	}
	for _, tt := range tests {
		in := Input{Tool: tt.tool, Targets: tt.targets, Mode: ModeAuto, Rules: tt.rules, Hook: tt.hook, Resolver: Resolver{Workspace: ws}}
		v := Evaluate(in)
		if v.Behavior != Ask || v.Classify != tt.classify || v.ReasonCode != tt.code {
			t.Errorf("%s: %+v, want ask classify=%v code %s", tt.name, v, tt.classify, tt.code)
		}
		in.Mode = ModeDefault
		if v := Evaluate(in); v.Classify {
			t.Errorf("%s: default mode marks classify", tt.name)
		}
	}
}
