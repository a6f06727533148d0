package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule allows, denies or asks about the calls it matches. Every condition that is set
// must hold: Tool (a glob over the wire name or the namespace), Path (a doublestar glob
// over the call's path arguments) and Command (a shell command prefix). Deny beats ask
// beats allow.
type Rule struct {
	ID       string   `json:"id"`
	Behavior Behavior `json:"behavior"`
	// Tool is a glob over the wire name (sandbox_bash, mcp__gitHub__*) or the namespace
	// (sandbox, mcp:<serverId>, mcp:*); "" = any tool.
	Tool string `json:"tool,omitempty"`
	// Path is a glob over the path arguments after `~`, `..` and symlinks are resolved,
	// compared in Unicode NFC and without regard to case on file systems that ignore it;
	// relative globs start in the session's workspace and in the directories the tool
	// reads relative paths against, a leading `**` matches anywhere. An allow needs every
	// path of the call to match; deny and ask need one, and a path Cairn cannot place
	// meets every deny and ask glob.
	Path string `json:"path,omitempty"`
	// Command is a prefix of a shell command, word by word (`git status` covers
	// `git status --short`, never `git statusx` or `git status; rm -rf ~`).
	// NAME=value prefixes are only allowed when the rule lists them.
	Command string `json:"command,omitempty"`
	// Fingerprint binds an allow to one version of an MCP tool (its schema and its
	// server's command or URL): when either changes the rule stops applying and Cairn
	// asks again.
	Fingerprint string `json:"fingerprint,omitempty"`
	// SessionID limits the rule to one session; "" = every session.
	SessionID string `json:"sessionId,omitempty"`
	// Source is who made the rule: user_temporary, user_permanent or config.
	Source string `json:"source"`
	// Note is the user's own description.
	Note string `json:"note,omitempty"`
	// RequestID is the approval request whose decision created the rule, if any.
	RequestID string `json:"requestId,omitempty"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

// Validate checks a rule before it is stored; the error says what is wrong in words a
// user can act on.
func (r Rule) Validate() error {
	var errs []error
	if !ValidBehavior(r.Behavior) {
		errs = append(errs, fmt.Errorf("behavior must be allow, deny or ask, not %q", r.Behavior))
	}
	if strings.TrimSpace(r.Tool) == "" && strings.TrimSpace(r.Path) == "" && strings.TrimSpace(r.Command) == "" {
		errs = append(errs, errors.New("a rule needs a tool, a path or a command (use tool \"*\" to match every tool)"))
	}
	if t := strings.TrimSpace(r.Tool); t != "" && !doublestar.ValidatePattern(t) {
		errs = append(errs, fmt.Errorf("the tool pattern %q is not a valid glob", t))
	}
	if p := strings.TrimSpace(r.Path); p != "" && !doublestar.ValidatePattern(filepath.ToSlash(p)) {
		errs = append(errs, fmt.Errorf("the path pattern %q is not a valid glob", p))
	}
	if c := strings.TrimSpace(r.Command); c != "" {
		if _, msg := parseCommandPattern(c); msg != "" {
			errs = append(errs, errors.New(msg))
		}
	}
	if r.Source != "" && !ValidRuleSource(r.Source) {
		errs = append(errs, fmt.Errorf("source must be user_temporary, user_permanent or config, not %q", r.Source))
	}
	if r.Fingerprint != "" && r.Behavior != Allow {
		errs = append(errs, errors.New("only allow rules are bound to a tool fingerprint"))
	}
	return errors.Join(errs...)
}

// String describes the rule in one line, for logs and the model.
func (r Rule) String() string {
	var parts []string
	if r.Tool != "" {
		parts = append(parts, "tool "+r.Tool)
	}
	if r.Path != "" {
		parts = append(parts, "path "+r.Path)
	}
	if r.Command != "" {
		parts = append(parts, "command `"+r.Command+"`")
	}
	scope := "every session"
	if r.SessionID != "" {
		scope = "this session"
	}
	return fmt.Sprintf("%s %s (%s)", r.Behavior, strings.Join(parts, ", "), scope)
}

// compiled is a rule prepared for one evaluation.
type compiled struct {
	Rule
	path    []pathPattern
	command commandPattern
	bad     bool // the rule does not parse (stored by an older version): it never applies
}

func compile(r Rule, res Resolver) compiled {
	c := compiled{Rule: r}
	if p := strings.TrimSpace(r.Path); p != "" {
		c.path = res.pattern(p)
	}
	if cmd := strings.TrimSpace(r.Command); cmd != "" {
		var msg string
		c.command, msg = parseCommandPattern(cmd)
		c.bad = msg != ""
	}
	return c
}

// matchesTool reports whether the rule's tool glob covers the tool.
func (c compiled) matchesTool(t Tool) bool {
	g := strings.TrimSpace(c.Tool)
	if g == "" || g == "*" {
		return true
	}
	return doublestar.MatchUnvalidated(g, t.Name) || (t.Namespace != "" && doublestar.MatchUnvalidated(g, t.Namespace))
}
