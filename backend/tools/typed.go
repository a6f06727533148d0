package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// TypedTool is a built-in tool written against a Go struct In: its JSON Schema is
// generated from In (field names from the json tags, descriptions from the jsonschema
// tags, fields without omitempty required, no other properties), and every step the
// pipeline runs on it gets the arguments decoded into In. Typed turns it into the
// registry's Entry. A built-in tool never writes its schema by hand.
type TypedTool[In any] struct {
	// Name is the wire name (BuiltinName); Namespace defaults to the capability's name.
	Name        string
	Namespace   string
	Description string
	SearchHint  string
	// Refine adjusts the generated schema for what a struct tag cannot say: bounds,
	// enumerations, formats. Optional.
	Refine func(s *jsonschema.Schema)

	Defer           Defer
	ReadOnly        bool
	Destructive     bool
	ConcurrencySafe bool
	Approval        Approval
	Cancellable     bool
	Aliases         []string
	MaxResultBytes  int
	Timeout         time.Duration
	ProgressKind    string
	Instruction     string
	Instructions    func(ctx context.Context, s Scope) string
	Applies         func(Scope) bool

	// Validate checks a call's input beyond the schema; its error is shown to the model.
	// Optional.
	Validate func(ctx context.Context, in In) error
	// Touches says what a call reaches: its paths, URLs and commands, and the files it
	// edits. The permission engine matches rules against exactly these and the approval
	// dialog shows them; a tool that reaches nothing leaves it nil.
	Touches func(in In) Touches
	// Preview reads the change a call would make from the files it changes, for the
	// approval dialog (a diff against the file as it is). Optional; when it is nil or
	// fails, the dialog shows Touches' edits.
	Preview func(ctx context.Context, in In) ([]Edit, error)
	// Run runs the call; progress may be reported any number of times until it returns.
	Run func(ctx context.Context, in In, progress func(Progress)) (Result, error)
}

// Touches is what one call of a built-in tool reaches, as the tool itself says (an MCP
// tool's arguments are read by guessing, in package permission).
type Touches struct {
	Paths    []string `json:"paths,omitempty"`
	URLs     []string `json:"urls,omitempty"`
	Commands []string `json:"commands,omitempty"`
	// Edits are the file changes of the call; their paths count as paths too.
	Edits []Edit `json:"edits,omitempty"`
}

// Edit is one file change: Old is the text replaced ("" for a new file or a whole-file
// write), New what replaces it. A preview adds Diff, the change as a unified diff against
// the file as it is, which the dialog shows instead of Old and New.
type Edit struct {
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new"`
	// Diff is a unified diff with context ("" when there is no preview); Added and Removed
	// count its lines; Truncated says it was cut; Created that the file is new; Unchanged
	// that the file already holds what the call would leave (there is nothing to diff).
	Diff      string `json:"diff,omitempty"`
	Added     int    `json:"added,omitempty"`
	Removed   int    `json:"removed,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Created   bool   `json:"created,omitempty"`
	Unchanged bool   `json:"unchanged,omitempty"`
	// Unshown says why an existing file's change has no diff: binary or too_large.
	Unshown string `json:"unshown,omitempty"`
}

// AllPaths are the paths of t with its edits' paths.
func (t Touches) AllPaths() []string {
	out := append([]string(nil), t.Paths...)
	for _, e := range t.Edits {
		out = append(out, e.Path)
	}
	return out
}

// Typed builds the registry entry of a typed tool. The schema is generated here, once; an
// In the generator cannot describe makes an entry Register refuses, saying why.
func Typed[In any](t TypedTool[In]) Entry {
	schema, err := TypedSchema[In](t.Refine)
	e := Entry{invalid: err, typed: true,
		Name: t.Name, Namespace: t.Namespace, Description: t.Description, SearchHint: t.SearchHint,
		InputSchema: schema, Defer: t.Defer, Applies: t.Applies,
		ReadOnly: t.ReadOnly, Destructive: t.Destructive, ConcurrencySafe: t.ConcurrencySafe,
		Approval: t.Approval, Cancellable: t.Cancellable, Aliases: t.Aliases,
		MaxResultBytes: t.MaxResultBytes, Timeout: t.Timeout, ProgressKind: t.ProgressKind,
		Instruction: t.Instruction, Instructions: t.Instructions,
		ValidateInput: func(ctx context.Context, args json.RawMessage) error {
			in, err := decodeInput[In](args)
			if err != nil || t.Validate == nil {
				return err
			}
			return t.Validate(ctx, in)
		},
		Execute: func(ctx context.Context, args json.RawMessage, progress func(Progress)) (Result, error) {
			in, err := decodeInput[In](args)
			if err != nil {
				return Result{}, err
			}
			return t.Run(ctx, in, progress)
		},
	}
	if t.Touches != nil {
		e.Touches = func(args json.RawMessage) (Touches, error) {
			in, err := decodeInput[In](args)
			if err != nil {
				return Touches{}, err
			}
			return t.Touches(in), nil
		}
	}
	if t.Preview != nil {
		e.Preview = func(ctx context.Context, args json.RawMessage) ([]Edit, error) {
			in, err := decodeInput[In](args)
			if err != nil {
				return nil, err
			}
			return t.Preview(ctx, in)
		}
	}
	return e
}

// TypedSchema is the JSON Schema Typed generates for In, after refine (may be nil).
func TypedSchema[In any](refine func(*jsonschema.Schema)) (json.RawMessage, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("the input of a tool must be a struct, not %s", s.Type)
	}
	if refine != nil {
		refine(s)
	}
	return json.Marshal(s)
}

// decodeInput reads arguments the schema accepted into In. Numbers keep their precision
// (json.Number) wherever In holds them as any.
func decodeInput[In any](args json.RawMessage) (In, error) {
	var in In
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if err := d.Decode(&in); err != nil {
		return in, fmt.Errorf("arguments do not fit the tool's input: %w", err)
	}
	return in, nil
}
