package mcp

import (
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/proc"
)

// procStderr keeps what one process wrote to stderr: its first lines and its last. The
// reason a process ended is read from it alone, never from the server's whole log, which
// holds earlier runs too (an error of this run hidden behind the usage text of the last).
type procStderr struct {
	mu    sync.Mutex
	first []string
	last  []string // a ring once first is full
	next  int
	ended chan struct{} // closed once the process exited and its stderr was read to the end
}

const (
	stderrFirst = 64
	stderrLast  = 32
	maxReason   = 300 // characters of the reason line kept in an error
)

func (c *procStderr) add(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.first) < stderrFirst {
		c.first = append(c.first, line)
		return
	}
	if len(c.last) < stderrLast {
		c.last = append(c.last, line)
		return
	}
	c.last[c.next] = line
	c.next = (c.next + 1) % stderrLast
}

func (c *procStderr) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]string(nil), c.first...)
	out = append(out, c.last[c.next:]...)
	return append(out, c.last[:c.next]...)
}

// reason is the first meaningful line of the process's stderr ("" when it wrote none).
func (c *procStderr) reason() string {
	if c == nil {
		return ""
	}
	r := meaningfulLine(c.lines())
	if len([]rune(r)) > maxReason {
		r = string([]rune(r)[:maxReason]) + "…"
	}
	return r
}

var (
	// strongErrorRE: a line that says it is an error ("Error: …", "TypeError: …",
	// "error: …", "[ERROR] …", "FATAL …", "panic: …", "level=error"), after optional
	// bracketed tags and a timestamp.
	strongErrorRE = regexp.MustCompile(`(?i)^(?:\[[^\]]*\]\s*|\d{4}-\d\d-\d\d\S*\s+)*(?:\w*error|\w*exception|fatal|panic|critical)\b(?:\s*\[[^\]]*\])?\s*[:!\]]|\blevel=(?:error|fatal)\b`)
	// weakErrorRE: a line that reads like the cause without saying "error".
	weakErrorRE = regexp.MustCompile(`(?i)\b(?:missing|not provided|required|invalid|cannot|can't|could not|couldn't|unable|failed|not found|denied|unauthori[sz]ed|forbidden|refused|not set|no\b.{0,40}\b(?:provided|given|set|found|configured))\b`)
	// noiseRE: lines that never explain a failure: stack frames, source positions and
	// carets of a Node crash, Node and npm notices.
	noiseRE     = regexp.MustCompile(`^(?:\s*at\s|\s*File "|Traceback \(most recent call last\)|\(node:\d+\)|Node\.js v\d|.*--trace-(?:warnings|deprecation)|npm (?:warn|notice|info|http|timing|WARN)\b|Need to install the following packages|Ok to proceed|npx: installed|(?:file://)?/\S*:\d+$|\W*$)`)
	usageHeadRE = regexp.MustCompile(`(?i)^\s*(?:usage|options|commands|examples|arguments|flags|environment(?: variables)?)\s*:`)
	optionRE    = regexp.MustCompile(`^\s*-{1,2}\w`)
)

// meaningfulLine picks the line that explains a failure from a process's stderr: the
// first that says it is an error, else the first that reads like a cause, else the first
// that is not noise. Usage text (a "Usage:" block, option lines) is skipped, so "No access
// token was provided" wins over the help a server prints with it.
func meaningfulLine(lines []string) string {
	var weak, plain string
	usage := false
	for _, raw := range lines {
		l := strings.TrimSpace(raw)
		if strongErrorRE.MatchString(l) {
			return l
		}
		switch {
		case usageHeadRE.MatchString(raw):
			usage = true
			continue
		case usage && l != "" && raw != strings.TrimLeft(raw, " \t"):
			continue // indented text of the usage block
		case l == "":
			usage = false
			continue
		case optionRE.MatchString(raw) || noiseRE.MatchString(l):
			continue
		}
		usage = false
		if weak == "" && weakErrorRE.MatchString(l) {
			weak = l
		}
		if plain == "" {
			plain = l
		}
	}
	if weak != "" {
		return weak
	}
	return plain
}

// startFailure is how a stdio process ended before Cairn could use it: the error a window
// shows, and what the supervisor needs to tell a deterministic failure from a passing one.
type startFailure struct {
	err      *apperr.Error
	exitCode int  // -1: killed by a signal (or unknown)
	answered bool // the process sent at least one message before it ended
	reason   string
}

func (f *startFailure) Error() string { return f.err.Error() }
func (f *startFailure) Unwrap() error { return f.err }

// deterministic: the process exited with a non-zero status before it answered anything,
// which a restart on a timer would only repeat (a missing token, a bad flag).
func (f *startFailure) deterministic() bool { return !f.answered && f.exitCode > 0 }

// exitedError explains how a stdio process ended, by the first meaningful line of its own
// stderr.
func exitedError(name string, p *proc.Process, out *procStderr, answered bool) *startFailure {
	reason := out.reason()
	shown := reason
	if shown == "" {
		shown = "(nothing)"
	}
	ae := apperr.New(apperr.MCPExited, "mcp server %s %s: %s", name, p.Describe(), shown).
		WithParam("server", name).WithParam("code", p.Describe()).WithParam("stderr", shown)
	return &startFailure{err: ae, exitCode: p.ExitCode(), answered: answered, reason: reason}
}
