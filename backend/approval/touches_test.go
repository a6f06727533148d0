package approval_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// labelInput has an argument named like a path that holds no path, and one whose name
// says nothing that does.
type labelInput struct {
	Path  string `json:"path,omitempty" jsonschema:"A label, not a file"`
	Where string `json:"where,omitempty" jsonschema:"The file it writes"`
}

// TestBuiltinToolSaysWhatItTouches: for a built-in tool, what its Touches says is what
// path rules see, whatever its arguments are called, and its own word decides whether
// acceptEdits covers the call; the argument names are read only for MCP tools.
func TestBuiltinToolSaysWhatItTouches(t *testing.T) {
	e := newEnv(t)
	ran := 0
	label := tools.Typed(tools.TypedTool[labelInput]{
		Name: "test_label", Namespace: "test", Description: "Writes a label into a file.",
		Touches: func(in labelInput) tools.Touches {
			return tools.Touches{Edits: []tools.Edit{{Path: in.Where, New: in.Path}}}
		},
		Run: func(context.Context, labelInput, func(tools.Progress)) (tools.Result, error) {
			ran++
			return tools.Result{Content: "labelled"}, nil
		},
	})
	if err := e.reg.Register(label); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if _, err := e.svc.SaveRule(e.ctx, permission.Rule{Behavior: permission.Deny, Path: secret + "/**"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SetSessionMode(e.ctx, "s1", "bypassPermissions"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		denied     bool
	}{
		{"the declared path is denied", `{"path":"x","where":"` + secret + `/a.txt"}`, true},
		{"an argument called path that the tool does not touch", `{"path":"` + secret + `/a.txt","where":"` + t.TempDir() + `/b.txt"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := waitFor(t, e.run(e.ctx, nil, call("c-"+tt.name, "test_label", tt.args, "s1")), "batch")[0]
			if denied := o.Err != nil && o.Err.Code == apperr.ToolPermissionDeny; denied != tt.denied {
				t.Fatalf("outcome %s %+v, want denied=%v", o.Status, o.Err, tt.denied)
			}
		})
	}

	if ran != 1 {
		t.Fatalf("the tool ran %d times, want once", ran)
	}

	// The rule tester reads the same touches, and says the call is an edit.
	for args, want := range map[string]permission.Behavior{
		`{"where":"` + secret + `/c.txt"}`: permission.Deny,
		`{"path":"` + secret + `/c.txt"}`:  permission.Allow,
	} {
		res, err := e.svc.TestRule(e.ctx, approval.Sample{Tool: "test_label", Args: json.RawMessage(args), SessionID: "s1"})
		if err != nil || res.Verdict.Behavior != want || !res.Registered {
			t.Fatalf("tester %s: %+v %v, want %s", args, res.Verdict, err, want)
		}
	}
}
