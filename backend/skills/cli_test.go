package skills

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestCommand: `cairn skills list|show|import|enable|disable`, text and JSON; a
// relative import path starts in the terminal's folder; a usage mistake says the usage.
func TestCommand(t *testing.T) {
	f := newFixture(t, 0)
	writeSkill(t, filepath.Join(f.dataDir, "skills", "pdf"), "pdf", "Read PDFs.", "b", map[string]string{"ref.md": "r"})
	writeFile(t, filepath.Join(f.home, ".claude", "skills", "bad", FileName), "no front matter")
	term := t.TempDir()
	writeSkill(t, filepath.Join(term, "src", "mine"), "mine", "Mine.", "b", nil)
	svc := f.start(time.Hour)
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := RunCommand(f.ctx, svc, term, args, &out)
		return out.String(), err
	}
	out, err := run("list")
	if err != nil || !strings.Contains(out, "pdf\ton\tdata\t") || !strings.Contains(out, "bad\tbroken\tclaude\t") || !strings.Contains(out, "does not start with a front matter") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err = run("disable", "pdf"); err != nil || out != "disabled pdf\n" {
		t.Fatalf("disable: %v %q", err, out)
	}
	out, _ = run("list", "--json")
	var list []Skill
	if err := json.Unmarshal([]byte(out), &list); err != nil || list[0].Enabled {
		t.Fatalf("list --json: %v %s", err, out)
	}
	if out, err = run("show", "pdf"); err != nil || !strings.Contains(out, "switched off") || !strings.Contains(out, "ref.md\t1 bytes") {
		t.Fatalf("show: %v\n%s", err, out)
	}
	if out, err = run("enable", "pdf"); err != nil || out != "enabled pdf\n" {
		t.Fatalf("enable: %v %q", err, out)
	}
	if out, err = run("import", "src/mine"); err != nil || !strings.Contains(out, "imported mine into "+filepath.Join(f.dataDir, "skills", "mine")) {
		t.Fatalf("import: %v %q", err, out)
	}
	for _, bad := range [][]string{{"nope"}, {"show"}, {"enable", "a", "b"}, {"list", "--force"}} {
		if _, err := run(bad...); !apperr.Is(err, apperr.InvalidArgument) || !strings.Contains(err.Error(), "cairn skills list") {
			t.Fatalf("%v: %v", bad, err)
		}
	}
	if _, err := run("enable", "ghost"); !apperr.Is(err, apperr.SkillNotFound) {
		t.Fatalf("enable ghost: %v", err)
	}
}

// TestFoldersSettingWantsAbsolutePaths: a relative folder line is refused when saved,
// naming it; blank lines and absolute paths pass.
func TestFoldersSettingWantsAbsolutePaths(t *testing.T) {
	tests := []struct {
		in   string
		want bool // refused
	}{
		{"", false},
		{"/a/b\n\n  /c  \n", false},
		{"/a\nnotes", true},
		{"./x", true},
	}
	for _, tt := range tests {
		err := checkFolders(tt.in)
		if (err != nil) != tt.want || (err != nil && (err.Code != apperr.SettingInvalid || !strings.Contains(err.Error(), "absolute"))) {
			t.Fatalf("%q: %v", tt.in, err)
		}
	}
}
