package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// fixture is a workspace on disk with a protected folder, a folder with a non-ASCII
// name (stored in NFC), an outside folder and symlinks that lead from one to the other.
type fixture struct {
	root, ws, outside, home string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := fixture{root: root, ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside"), home: filepath.Join(root, "home")}
	for _, d := range []string{"protected", "free", norm.NFC.String("café")} {
		if err := os.MkdirAll(filepath.Join(f.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{f.outside, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(f.ws, "free", "inlink"): filepath.Join(f.ws, "protected"), // inside, to the protected folder
		filepath.Join(f.ws, "outlink"):        f.outside,                        // inside, pointing out
		filepath.Join(f.ws, "dangling"):       filepath.Join(f.outside, "new.txt"),
		filepath.Join(f.home, "proj"):         f.ws,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// allowMCP allows the MCP write tool without asking, so only a deny can stop a call.
var allowMCP = Rule{ID: "z-allow", Behavior: Allow, Tool: mcpWrite.Name, Source: SourceUserPermanent}

// TestRelativePathsStartWhereTheToolStarts: a relative path is placed in the tool's own
// base directories (an MCP server's roots or working directory), so a deny rule on a
// folder stops it; without a known base it is unresolved and meets every deny and ask
// rule and no allow rule.
func TestRelativePathsStartWhereTheToolStarts(t *testing.T) {
	f := newFixture(t)
	deny := Rule{ID: "d", Behavior: Deny, Path: filepath.Join(f.ws, "protected", "**"), Source: SourceConfig}
	ask := Rule{ID: "a", Behavior: Ask, Path: filepath.Join(f.ws, "protected", "**"), Source: SourceConfig}
	allowFree := Rule{ID: "f", Behavior: Allow, Tool: mcpWrite.Name, Path: filepath.Join(f.ws, "free", "**"), Source: SourceConfig}
	relDeny := Rule{ID: "r", Behavior: Deny, Path: "protected/**", Source: SourceConfig}
	tests := []struct {
		name  string
		bases []string
		path  string
		rules []Rule
		want  Behavior
	}{
		{"relative into the denied folder", []string{f.ws}, "protected/keep.txt", []Rule{deny, allowMCP}, Deny},
		{"absolute into the denied folder", []string{f.ws}, filepath.Join(f.ws, "protected", "keep.txt"), []Rule{deny, allowMCP}, Deny},
		{"relative elsewhere", []string{f.ws}, "free/ok.txt", []Rule{deny, allowMCP}, Allow},
		{"relative glob starts in the base", []string{f.ws}, "protected/keep.txt", []Rule{relDeny, allowMCP}, Deny},
		{"one of several bases lands in the folder", []string{f.outside, f.ws}, "protected/keep.txt", []Rule{deny, allowMCP}, Deny},
		{"ask rule in one base", []string{f.outside, f.ws}, "protected/keep.txt", []Rule{ask, allowMCP}, Ask},
		{"allow needs every base", []string{f.outside, f.ws}, "free/ok.txt", []Rule{allowFree}, Ask},
		{"allow in the only base", []string{f.ws}, "free/ok.txt", []Rule{allowFree}, Allow},
		{"no base: unresolved meets a deny", []string{}, "free/ok.txt", []Rule{deny, allowMCP}, Deny},
		{"no base: unresolved meets an ask", []string{}, "free/ok.txt", []Rule{ask, allowMCP}, Ask},
		{"no base: unresolved meets a relative deny", []string{}, "free/ok.txt", []Rule{relDeny, allowMCP}, Deny},
		{"no base: never allowed by path", []string{}, "free/ok.txt", []Rule{allowFree}, Ask},
		{"no base: absolute paths still resolve", []string{}, filepath.Join(f.ws, "free", "ok.txt"), []Rule{deny, allowMCP}, Allow},
		{"relative base is no base", []string{"ws"}, "free/ok.txt", []Rule{deny, allowMCP}, Deny},
	}
	for _, tt := range tests {
		in := Input{Tool: mcpWrite, Targets: pathArgs(tt.path), Rules: tt.rules, Resolver: Resolver{Bases: tt.bases, Home: f.home}}
		if v := Evaluate(in); v.Behavior != tt.want {
			t.Errorf("%s (%q in %v): %s (%s), want %s", tt.name, tt.path, tt.bases, v.Behavior, v.Reason, tt.want)
		}
	}
	// `~` in a path is the tool's home (an MCP server's config may set HOME); in a rule the
	// user's.
	toolHome := Resolver{Bases: []string{f.outside}, Home: f.home, PathHome: f.ws}
	if v := Evaluate(Input{Tool: mcpWrite, Targets: pathArgs("~/protected/keep.txt"), Rules: []Rule{deny, allowMCP}, Resolver: toolHome}); v.Behavior != Deny {
		t.Errorf("the tool's home: %s", v.Behavior)
	}
	homeRule := Rule{ID: "h", Behavior: Deny, Path: "~/proj/protected/**"}
	if v := Evaluate(Input{Tool: mcpWrite, Targets: pathArgs(filepath.Join(f.ws, "protected", "x")), Rules: []Rule{homeRule, allowMCP}, Resolver: toolHome}); v.Behavior != Deny {
		t.Errorf("a rule's ~ is the user's home: %s", v.Behavior)
	}
	// The model reads why: the path could not be placed.
	v := Evaluate(Input{Tool: mcpWrite, Targets: pathArgs("free/ok.txt"), Rules: []Rule{deny, allowMCP}, Resolver: Resolver{Bases: []string{}}})
	if !strings.Contains(v.Reason, `cannot tell where the path "free/ok.txt" leads`) || v.ReasonCode != "rule_denies" {
		t.Errorf("unresolved deny reason: %q (%s)", v.Reason, v.ReasonCode)
	}
	if v := Evaluate(Input{Tool: mcpWrite, Targets: pathArgs("protected/x"), Rules: []Rule{deny}, Resolver: Resolver{Bases: []string{f.ws}}}); strings.Contains(v.Reason, "cannot tell") {
		t.Errorf("placed deny reason: %q", v.Reason)
	}
	// Moving the denied folder away by its bare name is caught too.
	move := Extract([]byte(`{"source":"protected","destination":"gone"}`))
	if v := Evaluate(Input{Tool: mcpWrite, Targets: move, Rules: []Rule{deny, allowMCP}, Resolver: Resolver{Bases: []string{f.ws}}}); v.Behavior != Deny {
		t.Errorf("moving the denied folder: %s", v.Behavior)
	}
	// A path nested deeper than Extract reads is one Cairn cannot place.
	deep := Extract([]byte(strings.Repeat(`{"a":`, 20) + `{"path":"protected/keep.txt"}` + strings.Repeat(`}`, 20)))
	if v := Evaluate(Input{Tool: mcpWrite, Targets: deep, Rules: []Rule{deny, allowMCP}, Resolver: Resolver{Bases: []string{f.ws}}}); v.Behavior != Deny {
		t.Errorf("deeply nested path: %s", v.Behavior)
	}
	// A cwd argument moves the start; an unresolvable one leaves its paths unresolved.
	cwd := Targets{Cwd: "free", Paths: []string{"inlink/keep.txt"}}
	if v := Evaluate(Input{Tool: mcpWrite, Targets: cwd, Rules: []Rule{deny, allowMCP}, Resolver: Resolver{Bases: []string{f.ws}}}); v.Behavior != Deny {
		t.Errorf("relative to the cwd argument: %s", v.Behavior)
	}
	if v := Evaluate(Input{Tool: mcpWrite, Targets: cwd, Rules: []Rule{deny, allowMCP}, Resolver: Resolver{Bases: []string{}}}); v.Behavior != Deny {
		t.Errorf("relative to an unresolved cwd: %s", v.Behavior)
	}
	// chdir into free/inlink/.. lands in ws (the link's parent), not in ws/free.
	upFromLink := Targets{Cwd: "free/inlink/..", Paths: []string{"protected/keep.txt"}}
	if v := Evaluate(Input{Tool: mcpWrite, Targets: upFromLink, Rules: []Rule{deny, allowMCP}, Resolver: Resolver{Bases: []string{f.ws}}}); v.Behavior != Deny {
		t.Errorf("relative to a cwd that goes up from a link: %s", v.Behavior)
	}
}

// TestPathSpellingsCannotSlipPastADeny: every way an attacker may spell a path into the
// denied folder is caught; the control cases still run.
func TestPathSpellingsCannotSlipPastADeny(t *testing.T) {
	f := newFixture(t)
	nfc, nfd := norm.NFC.String("café"), norm.NFD.String("café")
	rules := []Rule{
		{ID: "d1", Behavior: Deny, Path: filepath.Join(f.ws, "protected", "**"), Source: SourceConfig},
		{ID: "d2", Behavior: Deny, Path: filepath.Join(f.ws, nfc, "**"), Source: SourceConfig},
		{ID: "d3", Behavior: Deny, Path: filepath.Join(f.outside, "**"), Source: SourceConfig},
		{ID: "d4", Behavior: Deny, Path: filepath.Join(f.ws, "secret.txt"), Source: SourceConfig},
		allowMCP,
	}
	ws := f.ws
	tests := []struct {
		name, path string
		res        Resolver
		want       Behavior
	}{
		{"control: a free file", "free/ok.txt", Resolver{}, Allow},
		{"control: a sibling whose name starts the same", "protected-not/x", Resolver{}, Allow},
		{"dot segments", "./free/../protected/./keep.txt", Resolver{}, Deny},
		{"doubled slashes", "free//..//protected//keep.txt", Resolver{}, Deny},
		{"leading double slash", "/" + ws + "/protected/keep.txt", Resolver{}, Deny},
		{"trailing slash", "protected/keep.txt/", Resolver{}, Deny},
		{"the folder itself", "protected", Resolver{}, Deny},
		{"the folder with a slash", "protected/", Resolver{}, Deny},
		{"surrounding spaces", "  protected/keep.txt ", Resolver{}, Deny},
		{"a newline in the name", "protected/x\ny", Resolver{}, Deny},
		{"Windows separators", `protected\keep.txt`, Resolver{}, Deny},
		{"Windows separators and dots", `free\..\protected\keep.txt`, Resolver{}, Deny},
		{"file URL", "file://" + ws + "/protected/keep.txt", Resolver{}, Deny},
		{"file URL on localhost", "file://localhost" + ws + "/protected/keep.txt", Resolver{}, Deny},
		{"file URL percent-encoded", "FILE://" + ws + "/prot%65cted/keep.txt", Resolver{}, Deny},
		{"file URL of another host", "file://elsewhere/share/x", Resolver{}, Deny},
		{"home", "~/proj/protected/keep.txt", Resolver{}, Deny},
		{"another user's home", "~root/x", Resolver{}, Deny},
		{"home without a home directory", "~/x", Resolver{Home: "-"}, Deny},
		{"symlink inside to the denied folder", "free/inlink/keep.txt", Resolver{}, Deny},
		{"symlink inside pointing out", "outlink/x", Resolver{}, Deny},
		{"dangling symlink pointing out", "dangling", Resolver{}, Deny},
		{"NFD spelling of an NFC folder", nfd + "/keep.txt", Resolver{}, Deny},
		{"NFC spelling", nfc + "/keep.txt", Resolver{}, Deny},
		{"case on a case-insensitive file system", "PROTECTED/keep.txt", Resolver{Case: CaseInsensitive}, Deny},
		{"non-ASCII case", strings.ToUpper(nfd) + "/keep.txt", Resolver{Case: CaseInsensitive}, Deny},
		{"case on a case-sensitive file system is another folder", "PROTECTED/keep.txt", Resolver{Case: CaseSensitive}, Allow},
		{"Windows: trailing dot of a folder", "protected./keep.txt", Resolver{names: windowsNames}, Deny},
		{"Windows: trailing space of a folder", "protected /keep.txt", Resolver{names: windowsNames}, Deny},
		{"Windows: folder stream", "protected::$INDEX_ALLOCATION/keep.txt", Resolver{names: windowsNames}, Deny},
		{"Windows: file stream", "secret.txt::$DATA", Resolver{names: windowsNames}, Deny},
		{"Windows: trailing dot of a file", "secret.txt.", Resolver{names: windowsNames}, Deny},
		{"Unix: a trailing dot is another name", "secret.txt.", Resolver{names: posixNames}, Allow},
	}
	for _, tt := range tests {
		res := tt.res
		res.Workspace, res.Bases = ws, []string{ws}
		switch res.Home {
		case "":
			res.Home = f.home
		case "-":
			res.Home = ""
		}
		if res.Case == CaseAuto {
			res.Case = CaseSensitive
		}
		ex := Explain(Input{Tool: mcpWrite, Targets: pathArgs(tt.path), Rules: rules, Resolver: res})
		if ex.Verdict.Behavior != tt.want {
			t.Errorf("%s (%q): %s (%s), want %s; paths %+v", tt.name, tt.path, ex.Verdict.Behavior, ex.Verdict.Reason, tt.want, ex.Paths)
		}
	}
}

// TestRuleSpellings: the rule's glob is normalised like the path: NFD or NFC, case, dot
// segments, doubled slashes and a folder named without a glob.
func TestRuleSpellings(t *testing.T) {
	f := newFixture(t)
	nfc, nfd := norm.NFC.String("café"), norm.NFD.String("café")
	tests := []struct {
		name, glob, path string
		res              Resolver
		want             Behavior
	}{
		{"NFD rule, NFC path", filepath.Join(f.ws, nfd, "**"), nfc + "/x", Resolver{}, Deny},
		{"NFD rule, NFD path", filepath.Join(f.ws, nfd, "**"), nfd + "/x", Resolver{}, Deny},
		{"rule in capitals, insensitive", strings.ToUpper(filepath.Join(f.ws, "protected")) + "/**", "protected/x", Resolver{Case: CaseInsensitive}, Deny},
		{"full case folding for a deny", filepath.Join(f.ws, "straße", "**"), "STRASSE/x", Resolver{Case: CaseInsensitive}, Deny},
		{"dot segments in the rule", f.ws + "/free/../protected/**", "protected/x", Resolver{}, Deny},
		{"doubled slashes in the rule", f.ws + "//protected//**", "protected/x", Resolver{}, Deny},
		{"a folder without a glob holds its files", filepath.Join(f.ws, "protected"), "protected/x", Resolver{}, Deny},
		{"a folder with a trailing slash", filepath.Join(f.ws, "protected") + "/", "protected/x", Resolver{}, Deny},
		{"home in the rule, link in the path", "~/proj/protected/**", "protected/x", Resolver{}, Deny},
	}
	for _, tt := range tests {
		res := tt.res
		res.Workspace, res.Bases, res.Home = f.ws, []string{f.ws}, f.home
		if res.Case == CaseAuto {
			res.Case = CaseSensitive
		}
		rules := []Rule{{ID: "d", Behavior: Deny, Path: tt.glob, Source: SourceConfig}, allowMCP}
		if v := Evaluate(Input{Tool: mcpWrite, Targets: pathArgs(tt.path), Rules: rules, Resolver: res}); v.Behavior != tt.want {
			t.Errorf("%s (%q vs %q): %s, want %s", tt.name, tt.glob, tt.path, v.Behavior, tt.want)
		}
	}
}

// TestAllowFoldsLessThanDeny: an allow rule compares letter by letter (ß is not ss), so
// it never covers a name the file system keeps apart; on a case-sensitive file system
// case counts.
func TestAllowFoldsLessThanDeny(t *testing.T) {
	f := newFixture(t)
	allow := func(glob string) []Rule {
		return []Rule{{ID: "a", Behavior: Allow, Tool: mcpWrite.Name, Path: filepath.Join(f.ws, glob), Source: SourceConfig}}
	}
	tests := []struct {
		glob, path string
		c          CaseMode
		want       Behavior
	}{
		{"free/**", "FREE/x", CaseInsensitive, Allow},
		{"free/**", "FREE/x", CaseSensitive, Ask},
		{"straße/**", "STRASSE/x", CaseInsensitive, Ask},
		{"straße/**", "STRAßE/x", CaseInsensitive, Allow},
		{"free/**", "free/inlink/x", CaseSensitive, Ask}, // the link leads to protected
	}
	for _, tt := range tests {
		res := Resolver{Workspace: f.ws, Bases: []string{f.ws}, Case: tt.c}
		if v := Evaluate(Input{Tool: mcpWrite, Targets: pathArgs(tt.path), Rules: allow(tt.glob), Resolver: res}); v.Behavior != tt.want {
			t.Errorf("allow %q, %q (%s): %s, want %s", tt.glob, tt.path, tt.c, v.Behavior, tt.want)
		}
	}
}

// TestProbeFoldAnswersForTheFileSystem: the probe says what the temporary directory's
// file system does with a name in other case.
func TestProbeFoldAnswersForTheFileSystem(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "Probe")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := os.Lstat(filepath.Join(dir, "pROBE"))
	fold, known := probeFold(filepath.Join(p, "not", "there"))
	if !known || fold != (err == nil) {
		t.Fatalf("probe = %v, %v; the file system finds the swapped name: %v", fold, known, err == nil)
	}
	if _, known := probeFold("/"); known {
		t.Fatal("a root without a name cannot be probed")
	}
	if (Resolver{}).folds(p) != (err == nil) {
		t.Fatal("CaseAuto does not follow the probe")
	}
}

func TestWindowsName(t *testing.T) {
	tests := map[string]string{
		"C:/ws/protected./keep.txt":               "C:/ws/protected/keep.txt",
		"C:/ws/protected . ./keep.txt":            "C:/ws/protected/keep.txt",
		"C:/ws/secret.txt::$DATA":                 "C:/ws/secret.txt",
		"C:/ws/dir::$INDEX_ALLOCATION/x":          "C:/ws/dir/x",
		"//?/C:/ws/x":                             "C:/ws/x",
		"//./C:/ws/x":                             "C:/ws/x",
		"//?/UNC/server/share/x":                  "//server/share/x",
		"C:/ws/../x":                              "C:/ws/../x",
		"C:/ws/a.b/c":                             "C:/ws/a.b/c",
		"/ws/protected/**":                        "/ws/protected/**",
		"C:/ws/*.":                                "C:/ws/*",
		"//?/unc/server/share/x":                  "//server/share/x",
		"C:/Users/me/AppData/Local/x.txt:Zone.Id": "C:/Users/me/AppData/Local/x.txt",
	}
	for in, want := range tests {
		if got := windowsName(in); got != want {
			t.Errorf("windowsName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileURLPath(t *testing.T) {
	tests := []struct {
		in, want string
		windows  bool
		isURL    bool
	}{
		{"file:///ws/x", "/ws/x", false, true},
		{"file://localhost/ws/x", "/ws/x", false, true},
		{"FILE:///ws/a%20b", "/ws/a b", false, true},
		{"file://host/share/x", "", false, true},
		{"file:///C:/ws/x", `C:\ws\x`, true, true},
		{"file://host/share/x", `\\host\share\x`, true, true},
		{"/ws/x", "", false, false},
		{"files/x", "", false, false},
	}
	for _, tt := range tests {
		got, ok := fileURLPath(tt.in, tt.windows)
		if tt.windows {
			got = strings.ReplaceAll(got, "/", `\`) // FromSlash of the host
		}
		if ok != tt.isURL || got != tt.want {
			t.Errorf("fileURLPath(%q, %v) = %q, %v; want %q, %v", tt.in, tt.windows, got, ok, tt.want, tt.isURL)
		}
	}
}
