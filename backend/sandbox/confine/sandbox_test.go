package confine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/sandbox/ops"
)

func TestRunAndExitCode(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			s := newSandbox(t, lv)
			ws := t.TempDir()
			r := run(t, s, Policy{Workspace: ws}, "echo hello; echo oops >&2; exit 7")
			if r.code != 7 || r.stdout != "hello\n" || r.stderr != "oops\n" {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

func TestRunOp(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			s := newSandbox(t, lv)
			ws := t.TempDir()
			mustWrite(t, ws+"/a.txt", "12345\n")
			rep := runOp(t, s, Policy{Workspace: ws}, ops.OpRead, ops.ReadRequest{Common: ops.Common{Workspace: ws}, Path: "a.txt"})
			if rep.Error != nil || !strings.Contains(string(rep.Result), "12345") {
				t.Fatalf("read in the workspace: %s, %+v", rep.Result, rep.Error)
			}
			// The op itself is told the workspace is "/": only the sandbox stops it.
			rep = runOp(t, s, Policy{Workspace: ws}, ops.OpRead, ops.ReadRequest{Common: ops.Common{Workspace: "/"}, Path: "etc/shadow"})
			if rep.Error == nil || !strings.Contains(rep.Error.Message, "permission denied") && rep.Error.Code != ops.CodeNotFound {
				t.Fatalf("read /etc/shadow: %s, %+v", rep.Result, rep.Error)
			}
		})
	}
}

func runOp(t *testing.T, s *Sandbox, pol Policy, op string, req any) ops.Reply {
	t.Helper()
	b, _ := json.Marshal(req)
	out, err := s.RunOp(context.Background(), pol, op, b)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	var rep ops.Reply
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%s answered %q: %v", op, out, err)
	}
	return rep
}

func TestOpRefusesUnconfined(t *testing.T) {
	if code := opMain(ops.OpList, strings.NewReader(`{"workspace":"/","path":"."}`), &strings.Builder{}); code != 125 {
		t.Fatalf("an operation outside the sandbox ran: exit %d", code)
	}
}

func TestNoneRefusesWithoutConsent(t *testing.T) {
	s := newSandbox(t, None)
	if _, err := s.Start(context.Background(), Policy{Workspace: t.TempDir()}, []string{"true"}, nil); !errors.Is(err, ErrUnconfined) {
		t.Fatalf("level none started without consent: %v", err)
	}
	s.opts.AllowUnconfined = true
	r := run(t, s, Policy{Workspace: t.TempDir()}, "exit 4")
	if r.code != 4 {
		t.Fatalf("unconfined run with consent: %+v", r)
	}
	if st := s.Status(context.Background()); st.Level != None || !st.Unconfined {
		t.Fatalf("status at none with consent: %+v", st)
	}
}
