package permission

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// SimpleCommand is one simple command of a shell line, its words after quote removal.
type SimpleCommand struct {
	// Assigns are the NAME=value prefixes (FOO=1 git status).
	Assigns []string `json:"assigns,omitempty"`
	// Words are the command name and its arguments. A word that is not literal (it holds
	// an expansion) is kept as "" and Literal is false.
	Words []string `json:"words"`
	// Literal is true when every word and assignment is known before the shell runs.
	Literal bool `json:"literal"`
	// Nested is true for commands found inside a substitution, subshell, function,
	// control structure, `sh -c` / `eval` string or other construct.
	Nested bool `json:"nested,omitempty"`
}

// String is the command as a shell line (words quoted where needed).
func (c SimpleCommand) String() string {
	parts := make([]string, 0, len(c.Assigns)+len(c.Words))
	for _, a := range c.Assigns {
		name, val, _ := strings.Cut(a, "=")
		parts = append(parts, name+"="+quoteWord(val))
	}
	for _, w := range c.Words {
		parts = append(parts, quoteWord(w))
	}
	return strings.Join(parts, " ")
}

func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	q, err := syntax.Quote(w, syntax.LangBash)
	if err != nil {
		return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return q
}

// ShellLine is what a command line is made of, as far as permissions care.
type ShellLine struct {
	Source string `json:"source"`
	// ParseError is set when the line is not valid bash: nothing about it can be allowed
	// automatically.
	ParseError string `json:"parseError,omitempty"`
	// Commands is every simple command found anywhere in the line (deny and ask rules
	// look at all of them).
	Commands []SimpleCommand `json:"commands"`
	// Top is the top-level simple commands, joined by ; && || | or &: what allow rules
	// must cover one by one.
	Top []SimpleCommand `json:"top"`
	// Hidden names the constructs that run or change more than the top-level commands
	// show (substitutions, subshells, assignments, functions, …). Any makes the line
	// impossible to allow by command rules.
	Hidden []string `json:"hidden,omitempty"`
	// Writes are the literal targets of output redirections (> >> &> >| <>).
	Writes []string `json:"writes,omitempty"`
}

// Plain reports whether allow rules may judge the line: it parsed, hides nothing and
// every top-level command is literal.
func (l ShellLine) Plain() bool {
	if l.ParseError != "" || len(l.Hidden) > 0 || len(l.Top) == 0 {
		return false
	}
	for _, c := range l.Top {
		if !c.Literal || len(c.Words) == 0 {
			return false
		}
	}
	return true
}

// maxShellDepth bounds how deep `sh -c '…'` and `eval …` strings are parsed.
const maxShellDepth = 3

// ParseShell analyses a bash command line. It never fails: an unparsable line comes
// back with ParseError set and its words split on blanks for deny rules to look at.
func ParseShell(src string) ShellLine {
	return parseShell(src, 0)
}

func parseShell(src string, depth int) ShellLine {
	line := ShellLine{Source: src}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		line.ParseError = err.Error()
		// Deny rules still see the words, so an unparsable line can be denied, never allowed.
		if ws := strings.Fields(src); len(ws) > 0 {
			line.Commands = []SimpleCommand{{Words: ws, Nested: true}}
		}
		return line
	}
	top := map[*syntax.CallExpr]bool{}
	var collectTop func(*syntax.Stmt)
	collectTop = func(s *syntax.Stmt) {
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			top[c] = true
		case *syntax.BinaryCmd:
			collectTop(c.X)
			collectTop(c.Y)
		}
	}
	for _, s := range f.Stmts {
		collectTop(s)
	}
	hide := func(what string) {
		if !slices.Contains(line.Hidden, what) {
			line.Hidden = append(line.Hidden, what)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Coprocess || n.Disown {
				hide("coprocess")
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				hide("variable assignment")
			}
			if slices.ContainsFunc(n.Args, hasBraces) {
				hide("brace expansion")
			}
			if len(n.Args) > 0 && unquotedGlob(n.Args[0]) {
				hide("pattern in the command name")
			}
			c := simpleCommand(n)
			c.Nested = !top[n]
			line.Commands = append(line.Commands, c)
			if top[n] {
				line.Top = append(line.Top, c)
			}
			if depth < maxShellDepth {
				for _, inner := range innerScripts(c) {
					sub := parseShell(inner, depth+1)
					for _, ic := range sub.Commands {
						ic.Nested = true
						line.Commands = append(line.Commands, ic)
					}
				}
			}
		case *syntax.Redirect:
			if isWrite(n) {
				if t, ok := literal(n.Word); ok {
					line.Writes = append(line.Writes, t)
				} else {
					hide("redirection to a computed file")
				}
			}
		case *syntax.CmdSubst:
			if n.Backquotes {
				hide("backticks")
			} else {
				hide("command substitution")
			}
		case *syntax.ProcSubst:
			hide("process substitution")
		case *syntax.ParamExp:
			hide("parameter expansion")
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			hide("arithmetic")
		case *syntax.Subshell:
			hide("subshell")
		case *syntax.Block:
			hide("command group")
		case *syntax.FuncDecl:
			hide("function definition")
		case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause:
			hide("control flow")
		case *syntax.TestClause, *syntax.TestDecl:
			hide("test expression")
		case *syntax.DeclClause:
			hide("declaration")
		case *syntax.TimeClause:
			hide("time")
		case *syntax.CoprocClause:
			hide("coprocess")
		case *syntax.ExtGlob:
			hide("extended glob")
		case *syntax.BraceExp:
			hide("brace expansion")
		case *syntax.DblQuoted:
			if n.Dollar {
				hide("locale string")
			}
		}
		return true
	})
	return line
}

// hasBraces reports whether bash would expand {a,b} in the word (the word is not
// changed).
func hasBraces(w *syntax.Word) bool {
	c := &syntax.Word{Parts: slices.Clone(w.Parts)}
	return syntax.SplitBraces(c) && expands(c)
}

// expands reports whether a split word holds a brace expansion bash performs: a
// sequence {a..c} or a list of two or more {a,b} ({} and {x} stay as written).
func expands(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if b, ok := p.(*syntax.BraceExp); ok {
			if b.Sequence || len(b.Elems) > 1 || slices.ContainsFunc(b.Elems, expands) {
				return true
			}
		}
	}
	return false
}

// unquotedGlob reports whether a word has a pattern character outside quotes: as a
// command name, /bin/r? runs whatever matches.
func unquotedGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(unescapedMeta(l.Value), "*?[") {
			return true
		}
	}
	return false
}

// unescapedMeta drops backslash-escaped characters, so \* does not count as a pattern.
func unescapedMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isWrite reports whether a redirection writes to the file its word names. `>&N` and
// `>&-` duplicate or close descriptors; `>&word` with a file name writes like `&>`.
func isWrite(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	case syntax.DplOut:
		t, ok := literal(r.Word)
		return !ok || !isFD(t)
	}
	return false
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// literal returns a word's value after quote removal when it holds no expansion.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted, *syntax.DblQuoted:
			if q, ok := p.(*syntax.DblQuoted); ok {
				if q.Dollar {
					return "", false
				}
				for _, qp := range q.Parts {
					if _, ok := qp.(*syntax.Lit); !ok {
						return "", false
					}
				}
			}
			s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				return "", false
			}
			b.WriteString(s)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes of an unquoted literal (\x is x, a backslash-newline
// disappears), as the shell does.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func simpleCommand(c *syntax.CallExpr) SimpleCommand {
	out := SimpleCommand{Literal: true, Words: make([]string, 0, len(c.Args))}
	for _, a := range c.Assigns {
		if a.Name == nil || a.Naked || a.Array != nil || a.Index != nil {
			out.Literal = false
			continue
		}
		v := ""
		if a.Value != nil {
			var ok bool
			if v, ok = literal(a.Value); !ok {
				out.Literal = false
			}
		}
		op := "="
		if a.Append {
			op = "+="
			out.Literal = false // appends to the caller's value: not knowable here
		}
		out.Assigns = append(out.Assigns, a.Name.Value+op+v)
	}
	for _, w := range c.Args {
		s, ok := literal(w)
		if !ok || hasBraces(w) {
			out.Literal = false
		}
		out.Words = append(out.Words, s)
	}
	return out
}

// shells are the interpreters whose -c string is parsed for deny rules.
var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"}

// innerScripts returns the literal scripts a command runs: `sh -c '…'`, `eval …`, and
// the same behind wrappers such as sudo or env.
func innerScripts(c SimpleCommand) []string {
	var out []string
	for _, ws := range commandForms(c.Words) {
		if len(ws) == 0 {
			continue
		}
		name := path.Base(ws[0])
		switch {
		case name == "eval" && len(ws) > 1:
			out = append(out, strings.Join(ws[1:], " "))
		case slices.Contains(shells, name):
			for i := 1; i < len(ws); i++ {
				a := ws[i]
				if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
					break
				}
				if strings.Contains(strings.TrimLeft(a, "-"), "c") && !strings.HasPrefix(a, "--") && i+1 < len(ws) {
					out = append(out, ws[i+1])
					break
				}
			}
		}
	}
	return out
}

// wrappers run the command that follows them; deny and ask rules look through them.
// The value lists the options that take a separate value (sudo -u root …).
var wrappers = map[string][]string{
	"command": nil, "builtin": nil, "exec": {"-a"}, "nohup": nil, "env": {"-u", "-C", "-S", "--unset", "--chdir"},
	"sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "--user", "--group", "--chdir"},
	"doas": {"-u", "-C"}, "nice": {"-n", "--adjustment"}, "ionice": {"-c", "-n", "-p", "-t"},
	"timeout": {"-s", "-k", "--signal", "--kill-after"}, "xargs": {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs"},
	"stdbuf": {"-i", "-o", "-e"}, "setsid": nil, "unbuffer": nil, "chrt": nil, "taskset": nil, "caffeinate": nil,
	"time": nil, "busybox": nil, "run0": {"-u", "--user"}, "flock": nil, "watch": {"-n", "-d", "--interval"},
}

// commandForms returns the words as written and, for each wrapper in front, the words
// of the command it runs (sudo -u root env FOO=1 rm x → rm x).
func commandForms(words []string) [][]string {
	out := [][]string{words}
	for guard := 0; guard < 8 && len(words) > 0; guard++ {
		name := path.Base(words[0])
		valued, ok := wrappers[name]
		if !ok {
			break
		}
		i := 1
		positional := 0 // timeout and chrt/taskset/flock take one positional argument first
		switch name {
		case "timeout", "chrt", "taskset", "flock":
			positional = 1
		}
	scan:
		for i < len(words) {
			w := words[i]
			switch {
			case w == "--":
				i++
				break scan
			case strings.HasPrefix(w, "-") && len(w) > 1:
				i++
				if slices.Contains(valued, w) && i < len(words) {
					i++
				}
			case name == "env" && strings.Contains(w, "="):
				i++
			case positional > 0:
				positional--
				i++
			default:
				break scan
			}
		}
		if i >= len(words) {
			break
		}
		words = words[i:]
		out = append(out, words)
	}
	return out
}

// commandPattern is a rule's command after parsing: assignments and words.
type commandPattern struct {
	assigns []string
	words   []string
}

// parseCommandPattern reads a rule's command: one simple command of literal words, with
// optional NAME=value prefixes. A trailing `*` or `:*` (the notation other tools use for
// "any further arguments") is accepted and means what a prefix means anyway.
func parseCommandPattern(s string) (commandPattern, string) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ":*")
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), " *"))
	if s == "" || s == "*" {
		return commandPattern{}, "the command is empty"
	}
	line := ParseShell(s)
	switch {
	case line.ParseError != "":
		return commandPattern{}, "the command is not valid shell: " + line.ParseError
	case len(line.Commands) != 1 || len(line.Top) != 1:
		return commandPattern{}, "the command must be one simple command (no ; && || | or substitutions)"
	case !line.Plain():
		return commandPattern{}, "the command must be literal words (found " + strings.Join(line.Hidden, ", ") + ")"
	case len(line.Writes) > 0:
		return commandPattern{}, "the command must not contain redirections"
	}
	c := line.Top[0]
	return commandPattern{assigns: c.Assigns, words: c.Words}, ""
}

// allows reports whether the pattern allows a top-level command: the same words first
// (word by word, so `git status` never allows `git statusx`) and no assignment the
// pattern does not list.
func (p commandPattern) allows(c SimpleCommand) bool {
	if !c.Literal || len(c.Words) < len(p.words) {
		return false
	}
	for _, a := range c.Assigns {
		if !slices.Contains(p.assigns, a) {
			return false
		}
	}
	return slices.Equal(c.Words[:len(p.words)], p.words)
}

// catches reports whether a deny or ask pattern applies to a command found anywhere:
// assignments are ignored, wrappers (sudo, env, timeout, …) are looked through and the
// command name is compared by its base name, so `/bin/rm` and `sudo rm` are `rm`.
func (p commandPattern) catches(c SimpleCommand) bool {
	for _, ws := range commandForms(c.Words) {
		if len(ws) < len(p.words) || len(ws) == 0 {
			continue
		}
		if path.Base(ws[0]) != path.Base(p.words[0]) && ws[0] != p.words[0] {
			continue
		}
		if slices.Equal(ws[1:len(p.words)], p.words[1:]) {
			return true
		}
	}
	return false
}
