package confine

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// levels are the levels the escape suite runs at: the best this machine gives, and
// reduced forced when it is not the best already.
func levels(t *testing.T) []Level {
	t.Helper()
	s := newSandbox(t, "")
	st := s.Status(context.Background())
	switch st.Level {
	case Strong:
		if newSandbox(t, Reduced).Status(context.Background()).Level == Reduced {
			return []Level{Strong, Reduced}
		}
		return []Level{Strong}
	case Reduced:
		return []Level{Reduced}
	}
	t.Fatalf("no sandbox level works on this machine: %v", st.Reasons)
	return nil
}

func newSandbox(t *testing.T, lv Level) *Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(filepath.Join(t.TempDir(), "data"), Options{Exe: exe, Force: lv})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// result is one sandboxed run.
type result struct {
	code           int
	stdout, stderr string
}

// run runs a shell script in the sandbox with workspace ws and returns what it did.
func run(t *testing.T, s *Sandbox, pol Policy, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := s.Start(ctx, pol, []string{"/bin/sh", "-c", script}, nil)
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	var errb strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b, _ := io.ReadAll(io.LimitReader(p.Stderr, 1<<20))
		errb.Write(b)
		_, _ = io.Copy(io.Discard, p.Stderr)
	}()
	out, _ := io.ReadAll(io.LimitReader(p.Stdout, 1<<20))
	_, _ = io.Copy(io.Discard, p.Stdout)
	wg.Wait()
	code, err := p.Wait()
	if err != nil {
		t.Fatalf("wait %q: %v", script, err)
	}
	return result{code: code, stdout: string(out), stderr: errb.String()}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
