package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
)

// parseArgs reads the model's argument text. Empty text means {} (models send nothing
// for tools without parameters); anything else must be one JSON object.
func parseArgs(name, text string) (json.RawMessage, any, *Outcome) {
	raw := bytes.TrimSpace([]byte(text))
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		detail := err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at := int(se.Offset) // the offset is just past the offending byte, or the end
			if at > 0 && at <= len(raw) && !strings.HasPrefix(se.Error(), "unexpected end") {
				at--
			}
			detail = fmt.Sprintf("%s at byte %d: %s", se.Error(), se.Offset, snippet(raw, at))
		}
		o := Outcome{
			Status: StatusError,
			Content: fmt.Sprintf("Error: the arguments for %s are not valid JSON (%s). "+
				"Send the arguments as one JSON object that matches the tool's parameters.", name, detail),
			Err: apperr.Wrap(err, apperr.ToolArgsInvalidJSON, "arguments of %s", name).
				WithParam("name", name).WithParam("reason", detail),
		}
		return nil, nil, &o
	}
	if _, ok := v.(map[string]any); !ok {
		o := argsInvalid(name, fmt.Sprintf("the arguments must be a JSON object, got %s", jsonKind(v)), "")
		return nil, nil, &o
	}
	return raw, v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// snippet shows the argument text before a byte offset, with an arrow where parsing
// failed.
func snippet(raw []byte, off int) string {
	off = min(max(off, 0), len(raw))
	lo := max(0, off-40)
	for lo > 0 && !utf8.RuneStart(raw[lo]) {
		lo++
	}
	s := string(raw[lo:off])
	if lo > 0 {
		s = "…" + s
	}
	if off >= len(raw) {
		return s + " <-- the text ends here"
	}
	hi := min(len(raw), off+15)
	for hi < len(raw) && !utf8.RuneStart(raw[hi]) {
		hi--
	}
	s += " <-- here " + string(raw[off:hi])
	if hi < len(raw) {
		s += "…"
	}
	return s
}

func argsInvalid(name, reason, when string) Outcome {
	return Outcome{
		Status: StatusError,
		Content: fmt.Sprintf("Error: invalid arguments for %s%s: %s. Correct the arguments and call the tool again.",
			name, when, reason),
		Err: apperr.New(apperr.ToolArgsInvalid, "arguments of %s%s: %s", name, when, reason).
			WithParam("name", name).WithParam("reason", reason),
	}
}

func inputRejected(name string, err error) Outcome {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Code != apperr.Unknown {
		return Outcome{Status: StatusError, Content: "Error: " + ae.Error(), Err: withName(ae, name)}
	}
	return Outcome{
		Status:  StatusError,
		Content: fmt.Sprintf("Error: %s refused its input: %s", name, err.Error()),
		Err: apperr.Wrap(err, apperr.ToolInputRejected, "%s refused its input", name).
			WithParam("name", name).WithParam("reason", err.Error()),
	}
}

func stoppedByHook(name, reason string) Outcome {
	return Outcome{
		Status:  StatusError,
		Content: fmt.Sprintf("Error: %s was stopped before it ran: %s", name, reason),
		Err: apperr.New(apperr.ToolStoppedByHook, "hook stopped %s: %s", name, reason).
			WithParam("name", name).WithParam("reason", reason),
	}
}

func denied(name string, d Decision) Outcome {
	reason := cmp0(d.Reason, "the call was not allowed")
	return Outcome{
		Status: StatusError,
		Content: fmt.Sprintf("Error: permission to run %s was denied: %s. Do not retry the same call; "+
			"ask the user or find another way.", name, reason),
		Err: apperr.New(apperr.ToolPermissionDeny, "permission denied for %s (%s): %s", name, cmp0(d.Source, "unknown source"), reason).
			WithParam("name", name).WithParam("reason", reason),
	}
}

// Stopped is the one shape of a tool-stopped outcome, for the pipeline and for the chat
// loop alike: a call stopped while it ran or waited, or never run because its answer
// ended. why nil means the user stopped it; otherwise why says what ended it (the round
// limit, …): the window renders it and the model reads its message.
func Stopped(callID, name string, why *apperr.Error) Outcome {
	out := Outcome{CallID: callID, Name: name, Status: StatusStopped}
	if why == nil {
		out.Content = fmt.Sprintf("%s was stopped by the user before it finished.", name)
		out.Err = apperr.New(apperr.ToolStopped, "%s stopped", name).WithParam("name", name)
		return out
	}
	out.Content = fmt.Sprintf("%s was not run: %s.", name, why.Message)
	out.Err = withName(why, name)
	return out
}

func timeout(e *Entry) Outcome {
	return Outcome{
		Status:  StatusError,
		Content: fmt.Sprintf("Error: %s took longer than %s and was stopped.", e.Name, e.Timeout),
		Err:     apperr.New(apperr.ToolTimeout, "%s timed out after %s", e.Name, e.Timeout).WithParam("name", e.Name),
	}
}

func failed(call Call, err error) Outcome {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Code != apperr.Unknown {
		return Outcome{Status: StatusError, Content: "Error: " + ae.Error(), Err: withName(ae, call.Name)}
	}
	return Outcome{
		Status:  StatusError,
		Content: fmt.Sprintf("Error: %s failed: %s", call.Name, err.Error()),
		Err: apperr.Wrap(err, apperr.ToolFailed, "%s failed", call.Name).
			WithParam("name", call.Name).WithParam("reason", err.Error()),
	}
}

// withName adds the tool name to a tool's own error unless it already has one.
func withName(ae *apperr.Error, name string) *apperr.Error {
	if _, ok := ae.Params["name"]; ok {
		return ae
	}
	return ae.WithParam("name", name)
}

func cmp0(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// mapResult turns what Execute returned into an outcome (step 7): errors become readable
// tool errors, large results are written to disk and replaced by a preview.
func (p *Pipeline) mapResult(call Call, e *Entry, res Result, err error) Outcome {
	if err != nil {
		return failed(Call{Name: e.Name}, err)
	}
	res, images := p.withImages(call, res)
	if res.IsError {
		content := cmp0(res.Content, e.Name+" reported a failure without details.")
		out := p.limit(call, e, Outcome{
			Status: StatusError, Content: content, Display: res.Display, Size: len(res.Content),
			Err: apperr.New(apperr.ToolFailed, "%s reported an error", e.Name).
				WithParam("name", e.Name).WithParam("reason", firstLine(content, 200)),
		})
		if !strings.HasPrefix(out.Content, "Error") {
			out.Content = "Error: " + out.Content
		}
		out.Images = images
		return out
	}
	out := p.limit(call, e, Outcome{
		Status: StatusResult, Content: cmp0(res.Content, "(no output)"), Display: res.Display, Size: len(res.Content),
	})
	out.Images = images
	return out
}

// limit spills content over the entry's limit to <resultDir>/<session>/<callid>.txt.
func (p *Pipeline) limit(call Call, e *Entry, out Outcome) Outcome {
	lim := e.maxResultBytes()
	if lim < 0 || len(out.Content) <= lim {
		return out
	}
	full := out.Content
	preview := cutPreview(full, min(p.preview, lim))
	if len(out.Display) > lim {
		out.Display = nil // the card reads the file instead
	}
	session := sessionOf(call)
	path, err := p.spill(session, call.ID, full)
	if err != nil {
		out.Status = StatusError
		out.Content = fmt.Sprintf("%s\n\n[Output truncated: the full result is %s (%d bytes) and could not be saved (%v); "+
			"only the first %d bytes are shown.]", preview, humanBytes(len(full)), len(full), err, len(preview))
		out.Err = apperr.Wrap(err, apperr.ToolResultSpill, "save result of %s", e.Name).WithParam("name", e.Name)
		return out
	}
	out.SpillPath = path
	out.Content = fmt.Sprintf("%s\n\n[Output truncated: the full result is %s (%d bytes); the first %d bytes are shown above. "+
		"It was saved to %s. Read more with %s {\"call_id\": %q, \"offset\": %d}.]",
		preview, humanBytes(len(full)), len(full), len(preview), path, readResultName, call.ID, len(preview))
	return out
}

// spill writes a result to the session's folder; the file name comes from the call id.
func (p *Pipeline) spill(session, callID, content string) (string, error) {
	dir := p.sessionDir(session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, safeFileName(callID, "call")+".txt")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return "", err
	}
	p.mu.Lock()
	p.spilled[session] = true
	p.mu.Unlock()
	return path, nil
}

// hasSpills reports whether the session has results on disk (this run, or an earlier
// one of the app).
func (p *Pipeline) hasSpills(session string) bool {
	p.mu.Lock()
	ok := p.spilled[session]
	p.mu.Unlock()
	if ok {
		return true
	}
	_, err := os.Stat(p.sessionDir(session))
	return err == nil
}

// sessionDir is the folder of a session's spilled results; calls without a session
// share "_". The name never leaves resultDir (safeFileName).
func (p *Pipeline) sessionDir(session string) string {
	return filepath.Join(p.resultDir, safeFileName(cmp0(session, "_"), "session"))
}

// safeFileName keeps [A-Za-z0-9._-]; a name that had to change gets a hash of the original
// so two different ids never share a file.
func safeFileName(s, fallback string) string {
	ok := s != "" && s != "." && s != ".." && len(s) <= 100
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 60 {
			break
		}
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			b.WriteRune(r)
		}
	}
	sum := sha256.Sum256([]byte(s))
	return cmp0(b.String(), fallback) + "-" + hex.EncodeToString(sum[:])[:12]
}

// cutPreview is the first n bytes, cut at a rune boundary and, when one is near the end,
// at a line break.
func cutPreview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, '\n'); i >= n*4/5 {
		cut = cut[:i]
	}
	return cut
}

// firstLine is the first non-empty line of s, trimmed, cut to about n bytes: many MCP
// descriptions start with a newline or indentation, and their first line would read blank.
func firstLine(s string, n int) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			s = t
			break
		}
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > n {
		s = cutPreview(s, n) + "…"
	}
	return s
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
