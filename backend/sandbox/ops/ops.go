// Package ops is the file work of the sandbox's tools, done inside the sandbox: Cairn
// re-executes itself as `cairn __sandbox-op <op>` under the session's policy, and Main
// reads the request as JSON on stdin and writes the answer as JSON on stdout, so the main
// process never opens a file on the model's behalf. Every path is taken relative to the
// workspace and opened beneath it (os.Root: no `..`, absolute path or symlink leads out),
// and writes refuse symlinked paths, hard-linked files and the protected paths, so a hole
// in the operating system's wall still does not let a file tool reach outside.
package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The operations Main knows.
const (
	OpRead  = "read"
	OpWrite = "write"
	OpEdit  = "edit"
	OpGrep  = "grep"
	OpList  = "ls"
	OpFind  = "find"
	// OpPreview says what a write or an edit would change, changing nothing.
	OpPreview = "preview"
)

// MaxRequest bounds a request read from stdin (a write's content is in it).
const MaxRequest = 32 << 20

// Common is what every request carries: where the workspace is and which paths in it
// stay read-only.
type Common struct {
	// Workspace is the absolute path of the workspace as the op sees it.
	Workspace string `json:"workspace"`
	// Protected are slash-separated paths relative to the workspace (doublestar globs)
	// that writes and edits refuse, with everything under them.
	Protected []string `json:"protected,omitempty"`
}

// Reply is what Main writes: the op's result, or why it failed.
type Reply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is an op's refusal, in words the model can act on; Code is stable.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// The codes an op fails with.
const (
	CodeBadRequest  = "bad_request"
	CodeOutside     = "outside_workspace"
	CodeNotFound    = "not_found"
	CodeNotRegular  = "not_regular"
	CodeIsDir       = "is_directory"
	CodeNotDir      = "not_directory"
	CodeHardlinked  = "hardlinked"
	CodeSymlinked   = "symlinked"
	CodeProtected   = "protected"
	CodeNoMatch     = "no_match"
	CodeManyMatches = "multiple_matches"
	CodeTooLarge    = "too_large"
	CodeEncoding    = "encoding"
	CodeBadPattern  = "bad_pattern"
	CodeIO          = "io"
)

func fail(code, path, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
}

// Main runs op on the request read from stdin and writes the Reply to stdout. It returns
// the process's exit code: 0 when a reply was written (an op's refusal is a reply too), 2
// when op is unknown or nothing could be written.
func Main(op string, stdin io.Reader, stdout io.Writer) int {
	run, ok := handler(op)
	if !ok {
		_ = json.NewEncoder(stdout).Encode(Reply{Error: fail(CodeBadRequest, "", "unknown operation %q", op)})
		return 2
	}
	raw, err := io.ReadAll(io.LimitReader(stdin, MaxRequest+1))
	var reply Reply
	switch {
	case err != nil:
		reply.Error = fail(CodeIO, "", "read the request: %v", err)
	case len(raw) > MaxRequest:
		reply.Error = fail(CodeTooLarge, "", "the request is larger than %d bytes", MaxRequest)
	default:
		reply = answer(run(raw))
	}
	if err := json.NewEncoder(stdout).Encode(reply); err != nil {
		return 2
	}
	return 0
}

func answer(v any, err error) Reply {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = fail(CodeIO, "", "%v", err)
		}
		return Reply{Error: e}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Reply{Error: fail(CodeIO, "", "encode the result: %v", err)}
	}
	return Reply{Result: b}
}

type handlerFunc func(raw []byte) (any, error)

func handler(op string) (handlerFunc, bool) {
	switch op {
	case OpRead:
		return typed(read), true
	case OpWrite:
		return typed(write), true
	case OpEdit:
		return typed(edit), true
	case OpGrep:
		return typed(grep), true
	case OpList:
		return typed(list), true
	case OpFind:
		return typed(find), true
	case OpPreview:
		return typed(preview), true
	}
	return nil, false
}

// typed decodes the request into Req, opens its workspace and runs fn.
func typed[Req interface{ common() Common }, Res any](fn func(w *workspace, r Req) (Res, error)) handlerFunc {
	return func(raw []byte) (any, error) {
		var r Req
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fail(CodeBadRequest, "", "the request is not valid: %v", err)
		}
		w, err := openWorkspace(r.common())
		if err != nil {
			return nil, err
		}
		defer w.close()
		return fn(w, r)
	}
}

func (c Common) common() Common { return c }

// Decode reads a reply into out, or returns its error (an *Error).
func Decode(b []byte, out any) error {
	var r Reply
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("read the sandbox's answer: %w", err)
	}
	if r.Error != nil {
		return r.Error
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("read the sandbox's answer: %w", err)
	}
	return nil
}
