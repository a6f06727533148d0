package confine

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary be the sandbox helper, as the Cairn binary is.
func TestMain(m *testing.M) {
	if code, ok := Entry(os.Args); ok {
		os.Exit(code)
	}
	if lv := os.Getenv(inheritedFDEnv); lv != "" {
		os.Exit(inheritedFDChild(Level(lv)))
	}
	os.Exit(m.Run())
}

// inheritedFDEnv makes the test binary a Cairn started with a descriptor open without
// close-on-exec (fd 9, a secret file: above the fds a run gives its child), which runs a
// command that reads it.
const inheritedFDEnv = "CAIRN_TEST_INHERITED_FD"

// inheritedFD runs the test binary as such a Cairn and checks its command read nothing.
func inheritedFD(t *testing.T, lv Level, secretFile string) {
	t.Helper()
	f, err := os.Open(secretFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), inheritedFDEnv+"="+string(lv))
	cmd.ExtraFiles = []*os.File{6: f} // fd 9, inherited as a launcher's descriptor would be
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), secret) || err == nil {
		t.Fatalf("the command read an inherited descriptor (%v): %s", err, out)
	}
	if !strings.Contains(string(out), "exit ") {
		t.Fatalf("the child Cairn did not run the command: %s", out)
	}
}

func inheritedFDChild(lv Level) int {
	exe, _ := os.Executable()
	ws, _ := os.MkdirTemp("", "cairn-fd-")
	defer os.RemoveAll(ws)
	s, err := New(ws+"-data", Options{Exe: exe, Force: lv})
	if err != nil {
		fmt.Println(err)
		return 2
	}
	p, err := s.Start(context.Background(), Policy{Workspace: ws}, []string{"/bin/sh", "-c", "cat <&9"}, nil)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	go func() { _, _ = io.Copy(os.Stdout, p.Stderr) }()
	_, _ = io.Copy(os.Stdout, p.Stdout)
	code, _ := p.Wait()
	fmt.Printf("exit %d\n", code)
	return code
}
