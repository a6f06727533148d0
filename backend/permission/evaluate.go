package permission

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Tool is what evaluation knows about the tool being called.
type Tool struct {
	Name        string `json:"name"`
	Namespace   string `json:"namespace"`
	ReadOnly    bool   `json:"readOnly"`
	Destructive bool   `json:"destructive"`
	// Approval is the tool's standing choice (ask, allow, or the defaults).
	Approval Approval `json:"approval,omitempty"`
	// Fingerprint is the current hash of an MCP tool's schema and its server's command
	// or URL ("" for other tools); allow rules bound to another fingerprint are stale.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Edits: the call edits files, as the tool itself says (a built-in tool's Touches).
	Edits bool `json:"edits,omitempty"`
}

// MCP reports whether the tool comes from an MCP server.
func (t Tool) MCP() bool { return strings.HasPrefix(t.Namespace, "mcp:") }

// Hook is a pre-call hook's decision (allow or ask) that reached permission.
type Hook struct {
	Behavior Behavior `json:"behavior"`
	Reason   string   `json:"reason,omitempty"`
}

// Input is everything one evaluation looks at.
type Input struct {
	Tool      Tool
	Targets   Targets
	Mode      Mode
	SessionID string
	// Rules are the stored rules; those of other sessions are ignored.
	Rules    []Rule
	Hook     *Hook
	Resolver Resolver
}

// Verdict is the answer for one call. Reason is readable: for a deny it is what the
// model reads, for an ask what the dialog says about why it asks.
type Verdict struct {
	Behavior Behavior `json:"behavior"`
	Source   string   `json:"source"`
	Reason   string   `json:"reason"`
	// ReasonCode names the reason for every locale (approval.reasons.<code> in the
	// windows); ReasonParams fill its placeholders. Reason stays for the model and logs.
	ReasonCode   string            `json:"reasonCode"`
	ReasonParams map[string]string `json:"reasonParams,omitempty"`
	RuleID       string            `json:"ruleId,omitempty"`
	// Classify: in auto mode, this ask may be decided by the classifier model instead of
	// the user (only the defaults' asks about a call that stays inside the workspace and
	// is not destructive; rules, hooks and a tool's own "always ask" never are).
	Classify bool `json:"classify,omitempty"`
	// Stale lists allow rules that no longer apply because the MCP tool changed.
	Stale []string `json:"staleRules,omitempty"`
}

// ReasonCodes lists every Verdict.ReasonCode; each has a text in every locale under
// approval.reasons (a frontend test checks the list against the locale files).
func ReasonCodes() []string {
	return []string{"rule_denies", "plan_mode", "bypass", "rule_asks", "hook_allows", "hook_asks", "rule_allows",
		"accept_edits", "tool_allowed", "read_only", "server_read_only", "can_change", "tool_changed", "needs_approval", "destructive",
		"command_unparsable", "command_hides", "command_not_allowed",
		ReasonOutsideWorkspace, ReasonClassifierAllows, ReasonClassifierAsks, ReasonClassifierLate, ReasonClassifierMalformed,
		ReasonClassifierUnavailable}
}

// Explanation is a verdict with what it was based on, for the rule tester and the dialog.
type Explanation struct {
	Verdict Verdict     `json:"verdict"`
	Paths   []Path      `json:"paths,omitempty"`
	Shell   []ShellLine `json:"shell,omitempty"`
	Inside  bool        `json:"insideWorkspace"` // every path is inside the workspace
}

// Evaluate decides a call: deny rules, then the mode (plan refuses writes, bypass allows
// the rest), ask rules, a hook's decision, allow rules, acceptEdits, and the defaults
// (the tool's own approval choice, else read-only tools pass and everything else asks).
func Evaluate(in Input) Verdict { return Explain(in).Verdict }

// Explain is Evaluate with the resolved paths and parsed commands it used.
func Explain(in Input) Explanation {
	if _, ok := ParseMode(string(in.Mode)); !ok {
		in.Mode = ModeDefault
	}
	c := prepare(in)
	ex := Explanation{Paths: c.paths, Shell: c.lines, Inside: c.allInside()}
	ex.Verdict = c.decide()
	return ex
}

// call is an Input with its paths resolved, commands parsed and rules compiled.
type call struct {
	in     Input
	paths  []Path
	writes []Path // output redirection targets of the commands
	lines  []ShellLine
	rules  []compiled
}

func prepare(in Input) *call {
	c := &call{in: in}
	res := in.Resolver
	bases := res.bases()
	if in.Targets.Cwd != "" {
		// Relative paths start in the directory the call names, wherever that leads.
		cwds := res.Resolve(in.Targets.Cwd)
		c.paths = append(c.paths, cwds...)
		bases = []string{}
		for _, d := range cwds {
			if !d.Unresolved {
				// Where chdir goes (Real) and where a tool joining the strings goes (Abs).
				bases = appendNew(appendNew(bases, d.Abs), d.Real)
			}
		}
	}
	for _, p := range in.Targets.Paths {
		c.paths = append(c.paths, res.resolveFrom(p, bases)...)
	}
	if in.Targets.Deep {
		c.paths = append(c.paths, Path{Raw: "…", Unresolved: true})
	}
	for _, cmd := range in.Targets.Commands {
		line := ParseShell(cmd)
		c.lines = append(c.lines, line)
		for _, w := range line.Writes {
			if harmlessWrite(w) {
				continue
			}
			wp := res.resolveFrom(w, bases)
			c.writes = append(c.writes, wp...)
			c.paths = append(c.paths, wp...)
		}
	}
	for _, r := range in.Rules {
		if r.SessionID != "" && r.SessionID != in.SessionID {
			continue
		}
		c.rules = append(c.rules, compile(r, res))
	}
	// Stable precedence inside a behavior: session rules first, then by id.
	slices.SortStableFunc(c.rules, func(a, b compiled) int {
		if (a.SessionID == "") != (b.SessionID == "") {
			if a.SessionID != "" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return c
}

// harmlessWrite names the device files a redirection may always write to.
func harmlessWrite(w string) bool {
	switch w {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "NUL", "nul":
		return true
	}
	return false
}

func (c *call) allInside() bool {
	if len(c.paths) == 0 {
		return false
	}
	for _, p := range c.paths {
		if !c.in.Resolver.Inside(p) {
			return false
		}
	}
	return true
}

func (c *call) decide() Verdict {
	t := c.in.Tool
	// 1. Deny rules hold in every mode.
	if r, ok := c.first(Deny); ok {
		return c.ruleVerdict(Deny, r, "a permission rule denies it", "rule_denies")
	}
	// 2. Plan mode runs only read-only tools.
	if c.in.Mode == ModePlan && !t.ReadOnly {
		return Verdict{Behavior: Deny, Source: SourceConfig,
			Reason: "the session is in plan mode, where only read-only tools run. " +
				"Describe the change in your plan instead of making it; the user can leave plan mode to carry it out", ReasonCode: "plan_mode"}
	}
	// 3. Bypass asks about nothing.
	if c.in.Mode == ModeBypass {
		return Verdict{Behavior: Allow, Source: SourceConfig, Reason: "the session bypasses permission prompts", ReasonCode: "bypass"}
	}
	// 4. Ask rules beat every allow.
	if r, ok := c.first(Ask); ok {
		return c.ruleVerdict(Ask, r, "a permission rule asks about it", "rule_asks")
	}
	// 5. A hook's decision.
	if h := c.in.Hook; h != nil {
		switch h.Behavior {
		case Allow:
			return Verdict{Behavior: Allow, Source: SourceHook, Reason: orDefault(h.Reason, "a hook allowed it"), ReasonCode: "hook_allows"}
		case Ask:
			return Verdict{Behavior: Ask, Source: SourceHook, Reason: orDefault(h.Reason, "a hook asks for approval"), ReasonCode: "hook_asks"}
		}
	}
	// 6. Allow rules (stale MCP bindings excluded).
	v, stale := c.allowed()
	if v.Behavior == Allow {
		return v
	}
	// 7. acceptEdits lets file edits inside the workspace pass.
	if c.in.Mode == ModeAcceptEdits && IsEditTool(t) && c.allInside() {
		return Verdict{Behavior: Allow, Source: SourceConfig, Reason: "acceptEdits: a file edit inside the workspace", ReasonCode: "accept_edits", Stale: stale}
	}
	// 8. Defaults: the tool's own choice ("never ask" lets it pass even when it can change
	// things), else read-only tools pass.
	switch {
	case t.Approval == ApprovalAllow:
		return Verdict{Behavior: Allow, Source: SourceConfig, Reason: "the user lets this tool run without asking", ReasonCode: "tool_allowed", Stale: stale}
	case t.ReadOnly && t.Approval == ApprovalDefault:
		if t.MCP() { // the server's own word, which the user chose to trust for this server
			return Verdict{Behavior: Allow, Source: SourceConfig, Reason: "the server marks it read-only", ReasonCode: "server_read_only", Stale: stale}
		}
		return Verdict{Behavior: Allow, Source: SourceConfig, Reason: "a read-only tool", ReasonCode: "read_only", Stale: stale}
	}
	v = Verdict{Behavior: Ask, Source: SourceConfig, Reason: "the tool can change things", ReasonCode: "can_change", Stale: stale}
	switch {
	case len(stale) > 0:
		v.Reason, v.ReasonCode = "the tool or its server changed since it was always allowed", "tool_changed"
	case t.Approval == ApprovalAsk:
		v.Reason, v.ReasonCode = "the tool always needs approval", "needs_approval"
	case t.Destructive:
		v.Reason, v.ReasonCode = "the tool can delete or overwrite data", "destructive"
	case len(c.lines) > 0:
		v.Reason, v.ReasonCode, v.ReasonParams = c.commandReason()
	}
	if c.in.Mode == ModeAuto {
		c.markClassify(&v)
	}
	return v
}

// markClassify lets the classifier decide a plain "can change" ask in auto mode, unless
// the call reaches a place outside the workspace (or one Cairn cannot place): those stay
// with the user, saying why.
func (c *call) markClassify(v *Verdict) {
	if v.ReasonCode != "can_change" && v.ReasonCode != "command_not_allowed" {
		return
	}
	for _, p := range c.paths {
		if !c.in.Resolver.Inside(p) {
			v.Reason, v.ReasonCode, v.ReasonParams = "auto mode: the call reaches "+p.String()+", outside the workspace",
				ReasonOutsideWorkspace, map[string]string{"path": p.String()}
			return
		}
	}
	v.Classify = true
}

// ruleVerdict is a deny or ask rule's verdict. When only a path Cairn cannot place met
// the rule, the reason says so, so that the model can name the path absolutely.
func (c *call) ruleVerdict(b Behavior, r compiled, what, code string) Verdict {
	reason := what + " (" + r.String() + ")"
	if raw, ok := c.unplaced(r); ok {
		reason += "; Cairn cannot tell where the path " + strconv.Quote(raw) +
			" leads, so every path rule holds for it: give the absolute path"
	}
	return Verdict{Behavior: b, Source: ruleSource(r), RuleID: r.ID, Reason: reason, ReasonCode: code,
		ReasonParams: map[string]string{"rule": r.String()}}
}

// unplaced reports the unresolved path that alone made a path rule match.
func (c *call) unplaced(r compiled) (string, bool) {
	if r.Path == "" {
		return "", false
	}
	raw, found := "", false
	for _, p := range c.paths {
		switch {
		case !p.Unresolved && c.in.Resolver.matchAny(r.path, p):
			return "", false
		case p.Unresolved && !found:
			raw, found = p.Raw, true
		}
	}
	return raw, found
}

// commandReason says why a command was not covered by an allow rule.
func (c *call) commandReason() (string, string, map[string]string) {
	for _, l := range c.lines {
		switch {
		case l.ParseError != "":
			return "the command could not be parsed", "command_unparsable", nil
		case len(l.Hidden) > 0:
			hidden := strings.Join(l.Hidden, ", ")
			return "the command contains " + hidden, "command_hides", map[string]string{"constructs": hidden}
		}
	}
	return "no rule allows this command", "command_not_allowed", nil
}

func ruleSource(r compiled) string {
	if r.Source == "" {
		return SourceConfig
	}
	return r.Source
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// first returns the first deny or ask rule that catches the call: its tool matches, one
// path matches (by any of its names) and one command anywhere in the line matches.
func (c *call) first(b Behavior) (compiled, bool) {
	for _, r := range c.rules {
		if r.Behavior != b || r.bad || !r.matchesTool(c.in.Tool) {
			continue
		}
		if r.Path != "" && !slices.ContainsFunc(c.paths, func(p Path) bool { return c.in.Resolver.matchAny(r.path, p) }) {
			continue
		}
		if r.Command != "" && !c.anyCommand(r.command) {
			continue
		}
		return r, true
	}
	return compiled{}, false
}

func (c *call) anyCommand(p commandPattern) bool {
	for _, l := range c.lines {
		if slices.ContainsFunc(l.Commands, p.catches) {
			return true
		}
	}
	return false
}

// allowed applies the allow rules. A rule without a command allows the call when its
// tool and paths match. Rules with a command allow a call whose every command line is
// plain (nothing hidden) and made only of top-level commands that some such rule covers,
// writing only inside the workspace.
func (c *call) allowed() (Verdict, []string) {
	var stale []string
	var cmdRules []compiled
	for _, r := range c.rules {
		if r.Behavior != Allow || r.bad || !r.matchesTool(c.in.Tool) {
			continue
		}
		if r.Fingerprint != "" && r.Fingerprint != c.in.Tool.Fingerprint {
			stale = append(stale, r.ID)
			continue
		}
		if r.Path != "" && (len(c.paths) == 0 || !allPaths(c.paths, func(p Path) bool { return c.in.Resolver.matchAllow(r.path, p) })) {
			continue
		}
		if r.Command == "" {
			return Verdict{Behavior: Allow, Source: ruleSource(r), RuleID: r.ID, Reason: "a permission rule allows it (" + r.String() + ")", ReasonCode: "rule_allows", ReasonParams: map[string]string{"rule": r.String()}}, stale
		}
		cmdRules = append(cmdRules, r)
	}
	if len(cmdRules) == 0 || len(c.lines) == 0 {
		return Verdict{}, stale
	}
	var used compiled
	for _, l := range c.lines {
		if !l.Plain() {
			return Verdict{}, stale
		}
		for _, cmd := range l.Top {
			i := slices.IndexFunc(cmdRules, func(r compiled) bool { return r.command.allows(cmd) })
			if i < 0 {
				return Verdict{}, stale
			}
			if used.ID == "" {
				used = cmdRules[i]
			}
		}
	}
	for _, w := range c.writes {
		if !c.in.Resolver.Inside(w) {
			return Verdict{}, stale
		}
	}
	return Verdict{Behavior: Allow, Source: ruleSource(used), RuleID: used.ID, Reason: "a permission rule allows the command (" + used.String() + ")", ReasonCode: "rule_allows", ReasonParams: map[string]string{"rule": used.String()}}, stale
}

func allPaths(ps []Path, f func(Path) bool) bool {
	for _, p := range ps {
		if !f(p) {
			return false
		}
	}
	return true
}

// IsEditTool reports whether acceptEdits covers the call: a tool that is not read-only
// and says itself that this call edits files (Tool.Edits, from a built-in tool's Touches).
// MCP tools never count: what they do to files is not known.
func IsEditTool(t Tool) bool {
	return t.Edits && !t.MCP() && !t.ReadOnly && t.Namespace != "meta"
}

// SuggestRules are the allow rules an "allow for this session" or "always allow"
// decision creates: for a shell tool one command rule per top-level command (none when a
// line hides something, since no rule could cover it), otherwise a rule for the tool,
// bound to the MCP tool's fingerprint.
func SuggestRules(t Tool, targets Targets) []Rule {
	if len(targets.Commands) > 0 {
		var out []Rule
		for _, cmd := range targets.Commands {
			line := ParseShell(cmd)
			if !line.Plain() {
				return nil
			}
			for _, top := range line.Top {
				r := Rule{Behavior: Allow, Tool: t.Name, Command: top.String()}
				if !slices.ContainsFunc(out, func(o Rule) bool { return o.Command == r.Command }) {
					out = append(out, r)
				}
			}
		}
		return out
	}
	return []Rule{{Behavior: Allow, Tool: t.Name, Fingerprint: t.Fingerprint}}
}

// Describe is a one-line summary of targets for the audit log.
func (t Targets) Describe() string {
	var parts []string
	if len(t.Commands) > 0 {
		parts = append(parts, "command: "+strings.Join(t.Commands, " ; "))
	}
	if t.Cwd != "" {
		parts = append(parts, "cwd: "+t.Cwd)
	}
	if len(t.Paths) > 0 {
		parts = append(parts, "paths: "+strings.Join(t.Paths, ", "))
	}
	if len(t.URLs) > 0 {
		parts = append(parts, "urls: "+strings.Join(t.URLs, ", "))
	}
	return strings.Join(parts, "; ")
}

// String is a path for messages: the real location when known.
func (p Path) String() string {
	switch {
	case p.Real != "":
		return p.Real
	case p.Abs != "":
		return p.Abs
	default:
		return filepath.Clean(p.Raw)
	}
}
