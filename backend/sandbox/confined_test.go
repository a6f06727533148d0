package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/sandbox/confine"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestToolsUnderTheRealSandbox runs the tools through the machine's sandbox at every
// level it gives: the file tools' ops in the re-executed helper, commands confined, and
// each result says the level; a file beside the workspace is out of reach of both. Where
// the machine gives no sandbox the tools refuse.
func TestToolsUnderTheRealSandbox(t *testing.T) {
	for _, level := range []confine.Level{confine.Strong, confine.Reduced} {
		t.Run(string(level), func(t *testing.T) {
			r := newRig(t)
			sb, err := confine.New(r.svc.spaces.dataDir, confine.Options{Force: level})
			if err != nil {
				t.Fatal(err)
			}
			r.svc.engine = Confined{SB: sb}
			if st := r.svc.engine.Status(t.Context()); st.Level != Level(level) {
				o := r.call(ListTool, map[string]any{}, nil)
				if o.Status != tools.StatusError || o.Err == nil || o.Err.Code != "sandbox_unavailable" {
					t.Fatalf("level %s not given (%v) and the tools did not refuse: %s %q", level, st.Reasons, o.Status, o.Content)
				}
				return
			}
			secret := filepath.Join(t.TempDir(), "secret.txt")
			if err := os.WriteFile(secret, []byte("TOP SECRET"), 0o600); err != nil {
				t.Fatal(err)
			}
			steps := []struct {
				tool string
				args map[string]any
				want string
			}{
				{WriteTool, map[string]any{"path": "run.sh", "content": "echo from inside\n"}, "Created run.sh"},
				{EditTool, map[string]any{"path": "run.sh", "old_string": "inside", "new_string": "the sandbox"}, "1 replacement"},
				{ReadTool, map[string]any{"path": "run.sh"}, "1\techo from the sandbox"},
				{BashTool, map[string]any{"command": "sh run.sh"}, "from the sandbox"},
				{BashTool, map[string]any{"command": "cat " + secret + " || echo refused"}, "refused"},
				{ReadTool, map[string]any{"path": secret}, "outside the workspace"},
			}
			for _, s := range steps {
				o := r.call(s.tool, s.args, nil)
				if !strings.Contains(o.Content, s.want) || strings.Contains(o.Content, "TOP SECRET") {
					t.Fatalf("%s %v: %s %q, want %q", s.tool, s.args, o.Status, o.Content, s.want)
				}
				if got := r.display(o)["level"]; got != string(level) {
					t.Fatalf("%s ran at %v, want %s", s.tool, got, level)
				}
			}
		})
	}
}
