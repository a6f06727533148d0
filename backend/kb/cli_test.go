package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

func TestCommand(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "garden.md"), []byte(english), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "db.md"), []byte(chinese), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if err := RunCommand(ctx, f.svc, dir, args, &out, &errb); err != nil {
			t.Fatalf("kb %v: %v (%s)", args, err, errb.String())
		}
		return out.String()
	}
	cli("create", "docs")
	// a relative path starts in the terminal's directory, not in this process's
	if out := cli("add", "docs", "garden.md", "db.md"); !strings.Contains(out, "garden.md") || !strings.Contains(out, "done") {
		t.Errorf("add: %s", out)
	}
	var hits []Hit
	if err := json.Unmarshal([]byte(cli("search", "docs", "索引", "--json")), &hits); err != nil || len(hits) == 0 || hits[0].File != "db.md" {
		t.Errorf("search --json: %v %+v", err, hits)
	}
	if out := cli("search", "docs", "aphids"); !strings.Contains(out, "garden.md") {
		t.Errorf("search: %s", out)
	}
	var fl []File
	if err := json.Unmarshal([]byte(cli("files", "docs", "--json")), &fl); err != nil || len(fl) != 2 {
		t.Errorf("files --json: %v %+v", err, fl)
	}
	cli("rm", "docs")
	var out, errb bytes.Buffer
	if err := RunCommand(ctx, f.svc, dir, []string{"files", "docs"}, &out, &errb); apperr.From(err).Code != apperr.KBNotFound {
		t.Errorf("files after rm: %v", err)
	}
	if err := RunCommand(ctx, f.svc, dir, []string{"bogus"}, &out, &errb); apperr.From(err).Code != apperr.InvalidArgument {
		t.Errorf("unknown subcommand: %v", err)
	}
}
