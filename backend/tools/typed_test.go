package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
	"github.com/google/jsonschema-go/jsonschema"
)

type writeInput struct {
	Path    string `json:"path" jsonschema:"File to write"`
	Content string `json:"content" jsonschema:"What the file holds afterwards"`
	Times   int    `json:"times,omitempty" jsonschema:"How many copies"`
}

func writeTool(got *writeInput) tools.Entry {
	return tools.Typed(tools.TypedTool[writeInput]{
		Name: "test_write", Namespace: "test", Description: "Write a file",
		Refine: func(s *jsonschema.Schema) { one := 1.0; s.Properties["times"].Minimum = &one },
		Validate: func(_ context.Context, in writeInput) error {
			if strings.HasPrefix(in.Path, "/etc/") {
				return errors.New("not under /etc")
			}
			return nil
		},
		Touches: func(in writeInput) tools.Touches {
			return tools.Touches{Edits: []tools.Edit{{Path: in.Path, New: in.Content}}}
		},
		Run: func(_ context.Context, in writeInput, _ func(tools.Progress)) (tools.Result, error) {
			*got = in
			return tools.Result{Content: "wrote " + in.Path}, nil
		},
	})
}

// TestTypedToolSchemaIsGenerated: the schema comes from the struct (names, descriptions,
// required fields, no other properties, refinements), and the model sees it.
func TestTypedToolSchemaIsGenerated(t *testing.T) {
	var got writeInput
	e := writeTool(&got)
	var s struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Description string   `json:"description"`
			Minimum     *float64 `json:"minimum"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
	}
	if err := json.Unmarshal(e.InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Properties["path"].Type != "string" || s.Properties["path"].Description != "File to write" ||
		strings.Join(s.Required, ",") != "path,content" || s.AdditionalProperties == nil || *s.AdditionalProperties ||
		s.Properties["times"].Minimum == nil || *s.Properties["times"].Minimum != 1 {
		t.Fatalf("generated schema: %s", e.InputSchema)
	}
}

// TestTypedToolDecodesThroughThePipeline: the pipeline validates against the generated
// schema, the tool's Validate sees the decoded input, Run gets it, and Touches says what
// a call reaches without any guessing from argument names.
func TestTypedToolDecodesThroughThePipeline(t *testing.T) {
	var got writeInput
	e := writeTool(&got)
	p, scope := newPipeline(t, tools.Options{}, e)
	tests := []struct {
		name, args string
		status     tools.Status
		code       apperr.Code
	}{
		{"decoded", `{"path":"a.txt","content":"hi","times":2}`, tools.StatusResult, ""},
		{"missing required", `{"path":"a.txt"}`, tools.StatusError, apperr.ToolArgsInvalid},
		{"unknown property", `{"path":"a.txt","content":"x","mode":"0777"}`, tools.StatusError, apperr.ToolArgsInvalid},
		{"refined bound", `{"path":"a.txt","content":"x","times":0}`, tools.StatusError, apperr.ToolArgsInvalid},
		{"own validation", `{"path":"/etc/passwd","content":"x"}`, tools.StatusError, apperr.ToolInputRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runOne(t, p, toolstest.Call("c1", "test_write", tt.args, scope))
			if o.Status != tt.status || (tt.code != "" && (o.Err == nil || o.Err.Code != tt.code)) {
				t.Fatalf("outcome %s %+v, want %s %s", o.Status, o.Err, tt.status, tt.code)
			}
		})
	}
	if got.Path != "a.txt" || got.Content != "hi" || got.Times != 2 {
		t.Fatalf("Run got %+v", got)
	}
	touched, err := e.Touches(json.RawMessage(`{"path":"b.txt","content":"new"}`))
	if err != nil || len(touched.AllPaths()) != 1 || touched.AllPaths()[0] != "b.txt" || touched.Edits[0].New != "new" {
		t.Fatalf("touches = %+v, %v", touched, err)
	}
}

// TestTypedToolWithoutStructInputIsRefused: an input the generator cannot describe as an
// object makes an entry the registry refuses, saying why.
func TestTypedToolWithoutStructInputIsRefused(t *testing.T) {
	e := tools.Typed(tools.TypedTool[string]{Name: "test_bad", Namespace: "test", Description: "Bad",
		Run: func(context.Context, string, func(tools.Progress)) (tools.Result, error) { return tools.Result{}, nil }})
	err := tools.NewRegistry().Register(e)
	if err == nil || !strings.Contains(err.Error(), "struct") {
		t.Fatalf("register = %v, want a refusal naming the struct input", err)
	}
}
