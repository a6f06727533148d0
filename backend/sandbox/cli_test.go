package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

func terminal(t *testing.T, stdin string) (capability.Terminal, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return capability.Terminal{Dir: t.TempDir(), DataDir: filepath.Join(t.TempDir(), "data"), Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}, &out, &errb
}

func TestCLIExecPassesExitCodeAndStreams(t *testing.T) {
	term, out, errb := terminal(t, "from stdin\n")
	ws := filepath.Join(term.Dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	err := runCLI(context.Background(), term, []string{"exec", "--workspace", "ws", "--env", "A=1", "--", "sh", "-c", `cat; echo "a=$A" > f; echo err >&2; exit 9`})
	var es ExitStatus
	if !errors.As(err, &es) || es.ExitCode() != 9 {
		t.Fatalf("exit code not passed on: %v", err)
	}
	if out.String() != "from stdin\n" || !strings.Contains(errb.String(), "err") {
		t.Fatalf("stdout %q stderr %q", out, errb)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "f")); string(b) != "a=1\n" {
		t.Fatalf("the command did not write the workspace: %q", b)
	}
	if err := runCLI(context.Background(), term, []string{"exec", "--workspace", "ws", "--", "true"}); err != nil {
		t.Fatalf("exit 0: %v", err)
	}
	if err := runCLI(context.Background(), term, []string{"exec", "--", "true"}); err == nil {
		t.Fatal("exec without a workspace ran")
	}
}

func TestCLIStatus(t *testing.T) {
	term, out, _ := terminal(t, "")
	if err := runCLI(context.Background(), term, []string{"status", "--json"}); err != nil {
		t.Fatal(err)
	}
	var st confine.Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || st.Level == "" || st.Reads.Detail == "" {
		t.Fatalf("status %q: %v", out, err)
	}
	out.Reset()
	if err := runCLI(context.Background(), term, []string{"status"}); err != nil || !strings.Contains(out.String(), "level: "+string(st.Level)) {
		t.Fatalf("status %q: %v", out, err)
	}
}
