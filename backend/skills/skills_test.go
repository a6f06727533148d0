package skills

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

func code(err error) apperr.Code {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// TestParse: the front matter's name and description and the body; a bad SKILL.md is
// told apart precisely.
func TestParse(t *testing.T) {
	tests := []struct {
		name, in, wantName, wantDesc, wantBody, wantErr string
	}{
		{"plain", "---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\nUse it.\n", "pdf", "Read PDFs.", "# PDF\nUse it.", ""},
		{"folded description and other keys", "---\nname: my_skill\nlicense: MIT\ndescription: >\n  Two\n  lines.\nmetadata:\n  a: 1\n---\nBody", "my_skill", "Two lines.", "Body", ""},
		{"CRLF and BOM", "\ufeff---\r\nname: x1\r\ndescription: d\r\n---\r\nB\r\n", "x1", "d", "B", ""},
		{"no body", "---\nname: a\ndescription: d\n---", "a", "d", "", ""},
		{"no front matter", "# Just markdown\n", "", "", "", "does not start with a front matter"},
		{"not closed", "---\nname: a\ndescription: d\n", "", "", "", "not closed"},
		{"bad yaml", "---\nname: [a\ndescription: d\n---\n", "", "", "", "not valid YAML"},
		{"no name", "---\ndescription: d\n---\n", "", "", "", "has no name"},
		{"no description", "---\nname: a\n---\n", "", "", "", "has no description"},
		{"empty description", "---\nname: a\ndescription: \"  \"\n---\n", "", "", "", "description in the front matter of SKILL.md is empty"},
		{"name not text", "---\nname: [a, b]\ndescription: d\n---\n", "", "", "", "name in the front matter of SKILL.md is not text"},
		{"name with markup", "---\nname: \"<b>x</b>\"\ndescription: d\n---\n", "", "", "", "is not a skill name"},
		{"name with a space", "---\nname: my skill\ndescription: d\n---\n", "", "", "", "is not a skill name"},
		{"description too long", "---\nname: a\ndescription: " + strings.Repeat("x", 1025) + "\n---\n", "", "", "", "longer than 1024"},
		{"not UTF-8", "---\nname: a\ndescription: \xff\n---\n", "", "", "", "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, d, b, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || n != tt.wantName || d != tt.wantDesc || b != tt.wantBody {
				t.Fatalf("got %q %q %q %v", n, d, b, err)
			}
		})
	}
}

// TestDiscoveryFromEverySource: the data directory's skills, a folder the user added
// (a folder of skills and a single skill folder), and the other agents' folders
// read-only, each with its source; a name found twice is used from the first source.
func TestDiscoveryFromEverySource(t *testing.T) {
	f := newFixture(t, 0)
	writeSkill(t, filepath.Join(f.dataDir, "skills", "pdf"), "pdf", "Read PDFs.", "b", nil)
	mine, single := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(mine, "notes"), "notes", "Take notes.", "b", nil)
	writeSkill(t, single, "single", "One skill folder.", "b", nil)
	writeSkill(t, filepath.Join(f.home, ".claude", "skills", "pdf"), "pdf", "Claude's PDF skill.", "b", nil)
	writeSkill(t, filepath.Join(f.home, ".claude", "skills", "review"), "review", "Review code.", "b", nil)
	writeSkill(t, filepath.Join(f.home, ".agents", "skills", "deploy"), "deploy", "Deploy.", "b", nil)
	writeFile(t, filepath.Join(f.home, ".agents", "skills", "not-a-skill", "README.md"), "x")
	f.settings.set(SettingFolders, mine+"\n\n  "+single+"  \nrelative/ignored")
	svc := f.start(time.Hour)

	list, err := svc.List(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list); got != "pdf@data notes@folder single@folder pdf@claude review@claude deploy@agents" {
		t.Fatalf("skills = %s", got)
	}
	for _, sk := range list {
		if sk.ReadOnly != (sk.Source == SourceClaude || sk.Source == SourceAgents) || !sk.Enabled {
			t.Fatalf("%s: readOnly %v enabled %v", sk.Dir, sk.ReadOnly, sk.Enabled)
		}
	}
	if list[3].ShadowedBy != list[0].Dir || list[0].ShadowedBy != "" {
		t.Fatalf("shadowing: %+v", list[3])
	}
	if got, _ := svc.Get(f.ctx, "pdf"); got.Description != "Read PDFs." {
		t.Fatalf("Get(pdf) = %+v", got)
	}

	// The other agents' folders can be left out.
	f.settings.set(SettingOtherAgents, false)
	svc.Rescan(f.ctx)
	if list, _ := svc.List(f.ctx); names(list) != "pdf@data notes@folder single@folder" {
		t.Fatalf("without other agents: %s", names(list))
	}
}

// TestHotPickUp: a skill added, changed or removed while Cairn runs is seen by the
// watcher without a restart, and the windows are told.
func TestHotPickUp(t *testing.T) {
	f := newFixture(t, 0)
	svc := f.start(10 * time.Millisecond)
	sub := f.bus.Subscribe(16)
	defer sub.Close()
	dir := filepath.Join(f.dataDir, "skills", "fresh")
	writeSkill(t, dir, "fresh", "First words.", "b", nil)
	eventually(t, "the new skill showing", func() bool { sk, err := svc.Get(f.ctx, "fresh"); return err == nil && sk.Description == "First words." })
	select {
	case ev := <-sub.C:
		if ev.Type != TypeChanged {
			t.Fatalf("event %s", ev.Type)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	// a later modification time, as an editor's save gives
	writeSkill(t, dir, "fresh", "Second words.", "b", nil)
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(dir, FileName), later, later); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the changed description", func() bool { sk, _ := svc.Get(f.ctx, "fresh"); return sk.Description == "Second words." })
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the skill leaving", func() bool { _, err := svc.Get(f.ctx, "fresh"); return code(err) == apperr.SkillNotFound })
	if svc.Rescan(f.ctx) {
		t.Fatal("a rescan with nothing changed read the folders again")
	}
}

// TestSignatureSeesEveryChange: the watcher's comparison changes with a new skill
// folder, a SKILL.md's size, and a new root, and stays put otherwise.
func TestSignatureSeesEveryChange(t *testing.T) {
	base := t.TempDir()
	rs := []root{{Dir: base, Source: SourceData}}
	s0 := signature(rs)
	if signature(rs) != s0 {
		t.Fatal("signature not stable")
	}
	writeSkill(t, filepath.Join(base, "a"), "a", "d", "b", nil)
	s1 := signature(rs)
	writeFile(t, filepath.Join(base, "a", FileName), "---\nname: a\ndescription: longer\n---\n")
	s2 := signature(rs)
	s3 := signature(append(rs, root{Dir: t.TempDir(), Source: SourceFolder}))
	if s0 == s1 || s1 == s2 || s2 == s3 {
		t.Fatal("a change did not change the signature")
	}
}

// TestBrokenSkillStandsAlone: a skill with bad front matter is listed with its error and
// cannot be loaded; the others load.
func TestBrokenSkillStandsAlone(t *testing.T) {
	f := newFixture(t, 0)
	writeFile(t, filepath.Join(f.dataDir, "skills", "broken", FileName), "---\nname: broken\n---\nno description\n")
	writeSkill(t, filepath.Join(f.dataDir, "skills", "good"), "good", "Works.", "Do good.", nil)
	svc := f.start(time.Hour)
	list, _ := svc.List(f.ctx)
	if len(list) != 2 || list[0].Name != "broken" || !strings.Contains(list[0].Error, "has no description") || list[1].Error != "" {
		t.Fatalf("list = %+v", list)
	}
	load := svc.Tools()[0]
	if _, err := load.Execute(f.ctx, json.RawMessage(`{"name":"broken"}`), nil); code(err) != apperr.SkillInvalid {
		t.Fatalf("loading the broken skill: %v", err)
	}
	res, err := load.Execute(f.ctx, json.RawMessage(`{"name":"good"}`), nil)
	if err != nil || !strings.Contains(res.Content, "Do good.") {
		t.Fatalf("good skill: %v %q", err, res.Content)
	}
	if block := svc.Instructions(f.ctx, tools.Scope{}); strings.Contains(block, "broken") || !strings.Contains(block, `<skill name="good">Works.</skill>`) {
		t.Fatalf("instructions:\n%s", block)
	}
}

// TestLoadAndReadResources: skill_load returns the body and the resources (not links,
// hidden files or SKILL.md); skill_read_resource reads one and refuses any path out of
// the folder, absolute paths and a link that leads out.
func TestLoadAndReadResources(t *testing.T) {
	f := newFixture(t, 0)
	dir := filepath.Join(f.dataDir, "skills", "forms")
	writeSkill(t, dir, "forms", "Fill forms.", "Read reference.md first.", map[string]string{
		"reference.md": "The reference.", "scripts/fill.py": "print('x')", ".hidden": "h",
	})
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, secret, "outside")
	if err := os.Symlink(secret, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	svc := f.start(time.Hour)
	load, read := svc.Tools()[0], svc.Tools()[1]
	res, err := load.Execute(f.ctx, json.RawMessage(`{"name":"forms"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var disp Loaded
	if err := json.Unmarshal(res.Display, &disp); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(disp.Resources); got != "[{reference.md 14} {scripts/fill.py 10}]" {
		t.Fatalf("resources = %s", got)
	}
	if !strings.Contains(res.Content, "Read reference.md first.") || !strings.Contains(res.Content, "- scripts/fill.py (10 bytes)") ||
		!strings.Contains(res.Content, "sandbox tools of a task session") {
		t.Fatalf("content:\n%s", res.Content)
	}
	if r, err := read.Execute(f.ctx, json.RawMessage(`{"name":"forms","path":"scripts/fill.py"}`), nil); err != nil || r.Content != "print('x')" {
		t.Fatalf("read: %v %q", err, r.Content)
	}
	for _, p := range []string{"../forms/reference.md", "scripts/../../x", "/etc/passwd", secret, `scripts\fill.py`, "C:/x", "", "."} {
		if _, err := read.Execute(f.ctx, json.RawMessage(fmt.Sprintf(`{"name":"forms","path":%q}`, p)), nil); code(err) != apperr.SkillResourceInvalid {
			t.Fatalf("path %q: %v", p, err)
		}
	}
	if _, err := read.Execute(f.ctx, json.RawMessage(`{"name":"forms","path":"link.txt"}`), nil); err == nil {
		t.Fatal("a link out of the folder was read")
	}
	if _, err := read.Execute(f.ctx, json.RawMessage(`{"name":"forms","path":"nope.md"}`), nil); code(err) != apperr.SkillResourceNotFound {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := load.Execute(f.ctx, json.RawMessage(`{"name":"nope"}`), nil); code(err) != apperr.SkillNotFound || !strings.Contains(err.Error(), "forms") {
		t.Fatalf("unknown skill: %v", err)
	}
}

// TestSwitchesGlobalAndPerSession: a skill switched off globally is neither offered nor
// loadable; a conversation's own choice wins over the global switch, and "default" gives
// it back.
func TestSwitchesGlobalAndPerSession(t *testing.T) {
	f := newFixture(t, 0)
	writeSkill(t, filepath.Join(f.dataDir, "skills", "alpha"), "alpha", "A.", "b", nil)
	writeSkill(t, filepath.Join(f.dataDir, "skills", "beta"), "beta", "B.", "b", nil)
	f.session("s1")
	svc := f.start(time.Hour)
	if _, err := svc.SetEnabled(f.ctx, "beta", false); err != nil {
		t.Fatal(err)
	}
	if block := svc.Instructions(f.ctx, tools.Scope{SessionID: "s2"}); strings.Contains(block, "beta") || !strings.Contains(block, "alpha") {
		t.Fatalf("global off:\n%s", block)
	}
	if _, err := svc.usableIn(f.ctx, "", "beta"); code(err) != apperr.SkillOff {
		t.Fatalf("loading a skill switched off: %v", err)
	}
	got, err := svc.SetSessionSkill(f.ctx, "s1", "beta", "on")
	if err != nil || fmt.Sprint(got) != "[{alpha true false true} {beta true true false}]" {
		t.Fatalf("session on: %v %v", got, err)
	}
	if _, err := svc.SetSessionSkill(f.ctx, "s1", "alpha", "off"); err != nil {
		t.Fatal(err)
	}
	block := svc.Instructions(f.ctx, tools.Scope{SessionID: "s1"})
	if !strings.Contains(block, "beta") || strings.Contains(block, "alpha") {
		t.Fatalf("session choices:\n%s", block)
	}
	if _, err := svc.usableIn(f.ctx, "s1", "beta"); err != nil {
		t.Fatalf("beta in s1: %v", err)
	}
	if got, _ := svc.SetSessionSkill(f.ctx, "s1", "beta", "default"); fmt.Sprint(got) != "[{alpha false true true} {beta false false false}]" {
		t.Fatalf("back to default: %v", got)
	}
	if _, err := svc.SetSessionSkill(f.ctx, "gone", "alpha", "on"); code(err) != apperr.SessionNotFound {
		t.Fatalf("unknown session: %v", err)
	}
	if _, err := svc.SetSessionSkill(f.ctx, "s1", "alpha", "maybe"); code(err) != apperr.InvalidArgument {
		t.Fatalf("bad state: %v", err)
	}
	// the conversation's choices go with it
	if _, err := f.db.Exec(`DELETE FROM sessions WHERE id = 's1'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := f.db.QueryRow(`SELECT COUNT(*) FROM skill_session_prefs`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows left: %d %v", n, err)
	}
}

// TestNoSkillsNoTools: without a usable skill the toolset adds neither tools nor text.
func TestNoSkillsNoTools(t *testing.T) {
	f := newFixture(t, 0)
	writeFile(t, filepath.Join(f.dataDir, "skills", "broken", FileName), "nothing")
	svc := f.start(time.Hour)
	if svc.anyUsable(tools.Scope{}) || svc.Instructions(f.ctx, tools.Scope{}) != "" {
		t.Fatal("a broken skill alone brought the toolset")
	}
}

func zipOf(t *testing.T, entries map[string]string, link string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, content := range entries {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(content))
	}
	if link != "" {
		h := &zip.FileHeader{Name: link}
		h.SetMode(fs.ModeSymlink | 0o777)
		fw, _ := w.CreateHeader(h)
		fw.Write([]byte("/etc"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const goodSkill = "---\nname: zipped\ndescription: From a zip.\n---\nBody.\n"

// TestImportZip: a zip with SKILL.md in its top folder is installed under its name; one
// with "../" entries, absolute paths, a link, no SKILL.md, too many entries or too many
// bytes is refused whole and leaves nothing behind.
func TestImportZip(t *testing.T) {
	f := newFixture(t, 0)
	svc := f.start(time.Hour)
	bad := []struct {
		name    string
		zip     []byte
		want    apperr.Code
		contain string
	}{
		{"dot-dot", zipOf(t, map[string]string{"x/SKILL.md": goodSkill, "x/../../evil.sh": "rm"}, ""), apperr.SkillImportInvalid, "steps out"},
		{"dot-dot first", zipOf(t, map[string]string{"../SKILL.md": goodSkill}, ""), apperr.SkillImportInvalid, "steps out"},
		{"absolute", zipOf(t, map[string]string{"/etc/cron.d/x": "x", "SKILL.md": goodSkill}, ""), apperr.SkillImportInvalid, "absolute"},
		{"drive", zipOf(t, map[string]string{"C:/x": "x", "SKILL.md": goodSkill}, ""), apperr.SkillImportInvalid, "absolute"},
		{"backslash", zipOf(t, map[string]string{`..\x`: "x", "SKILL.md": goodSkill}, ""), apperr.SkillImportInvalid, "non-portable"},
		{"link", zipOf(t, map[string]string{"SKILL.md": goodSkill}, "etc"), apperr.SkillImportInvalid, "link"},
		{"no SKILL.md", zipOf(t, map[string]string{"README.md": "x"}, ""), apperr.SkillImportInvalid, "no SKILL.md"},
		{"bad front matter", zipOf(t, map[string]string{"SKILL.md": "---\nname: x\n---\n"}, ""), apperr.SkillImportInvalid, "has no description"},
		{"not a zip", []byte("hello"), apperr.SkillImportInvalid, "not a zip"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.ImportZip(f.ctx, tt.name+".zip", bytes.NewReader(tt.zip), int64(len(tt.zip)))
			if code(err) != tt.want || !strings.Contains(err.Error(), tt.contain) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	many := map[string]string{"SKILL.md": goodSkill}
	for i := 0; i < MaxImportEntries; i++ {
		many[fmt.Sprintf("f%d", i)] = ""
	}
	z := zipOf(t, many, "")
	if _, err := svc.ImportZip(f.ctx, "many.zip", bytes.NewReader(z), int64(len(z))); code(err) != apperr.SkillImportInvalid || !strings.Contains(err.Error(), "entries") {
		t.Fatalf("too many entries: %v", err)
	}
	svc.maxImport = 1000
	z = zipOf(t, map[string]string{"SKILL.md": goodSkill, "big.bin": strings.Repeat("0", 5000)}, "")
	if _, err := svc.ImportZip(f.ctx, "big.zip", bytes.NewReader(z), int64(len(z))); code(err) != apperr.SkillImportTooLarge {
		t.Fatalf("too large: %v", err)
	}
	svc.maxImport = 0
	if entries, _ := os.ReadDir(filepath.Join(f.dataDir, "skills")); len(entries) != 0 {
		t.Fatalf("a refused import left %v", entries)
	}

	z = zipOf(t, map[string]string{"top/SKILL.md": goodSkill, "top/ref/a.md": "A"}, "")
	sk, err := svc.ImportZip(f.ctx, "good.zip", bytes.NewReader(z), int64(len(z)))
	if err != nil || sk.Name != "zipped" || sk.Source != SourceData || sk.Dir != filepath.Join(f.dataDir, "skills", "zipped") {
		t.Fatalf("import: %+v %v", sk, err)
	}
	if b, _ := os.ReadFile(filepath.Join(sk.Dir, "ref", "a.md")); string(b) != "A" {
		t.Fatal("resource not unpacked")
	}
	if _, err := svc.ImportZip(f.ctx, "good.zip", bytes.NewReader(z), int64(len(z))); code(err) != apperr.SkillExists {
		t.Fatalf("second import: %v", err)
	}
}

// TestImportFolder: a folder is copied (the original may go away); one with a link in
// it is refused.
func TestImportFolder(t *testing.T) {
	f := newFixture(t, 0)
	svc := f.start(time.Hour)
	src := filepath.Join(t.TempDir(), "whatever")
	writeSkill(t, src, "copied", "Copied.", "b", map[string]string{"a/b.txt": "B"})
	sk, err := svc.ImportFolder(f.ctx, src)
	if err != nil || sk.Name != "copied" {
		t.Fatalf("import: %+v %v", sk, err)
	}
	os.RemoveAll(src)
	if b, _ := os.ReadFile(filepath.Join(f.dataDir, "skills", "copied", "a", "b.txt")); string(b) != "B" {
		t.Fatal("not copied")
	}
	linked := filepath.Join(t.TempDir(), "linked")
	writeSkill(t, linked, "linked", "L.", "b", nil)
	os.Symlink("/etc/passwd", filepath.Join(linked, "passwd"))
	if _, err := svc.ImportFolder(f.ctx, linked); code(err) != apperr.SkillImportInvalid || !strings.Contains(err.Error(), "link") {
		t.Fatalf("folder with a link: %v", err)
	}
}
