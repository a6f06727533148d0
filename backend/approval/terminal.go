package approval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/termtext"
)

// Decider answers requests for a client without a dialog (the terminal).
type Decider interface {
	// Decide returns the choice and, for a deny, the reason for the model.
	Decide(ctx context.Context, r Request) (Choice, string, error)
}

// Terminal approve modes of `cairn chat --approve`.
const (
	ApproveAsk   = "ask"   // ask on the terminal
	ApproveAllow = "allow" // allow every call once, without asking
	ApproveDeny  = "deny"  // deny every call, without asking
)

// TerminalDecider answers from a terminal: it asks on Out and reads one line from In
// per request, or answers by itself in the allow and deny modes.
type TerminalDecider struct {
	// Width is the terminal's width in columns, which the prompt wraps long values to
	// (0: 100).
	Width int

	mode string
	in   io.Reader
	out  io.Writer

	once  sync.Once
	lines chan string   // closed when In ends
	turn  chan struct{} // held by the question on the terminal now
}

// NewTerminalDecider returns the decider of `--approve ask|allow|deny`.
func NewTerminalDecider(mode string, in io.Reader, out io.Writer) (*TerminalDecider, error) {
	switch mode {
	case ApproveAsk, ApproveAllow, ApproveDeny:
	default:
		return nil, apperr.New(apperr.InvalidArgument, "--approve must be ask, allow or deny, not %q", mode).
			WithParam("message", "--approve must be ask, allow or deny")
	}
	return &TerminalDecider{mode: mode, in: in, out: out, turn: make(chan struct{}, 1)}, nil
}

// Mode is the decider's --approve mode.
func (t *TerminalDecider) Mode() string { return t.mode }

// Lines is the terminal's input, one line at a time, for every question asked on it
// (approvals, and MCP servers' forms): one reader for the decider's lifetime, closed when
// In ends. Read it only while holding the turn.
func (t *TerminalDecider) Lines() <-chan string {
	t.once.Do(t.readLines)
	return t.lines
}

// Turn takes the terminal for one question, so two questions never read each other's
// answers; call the returned func to give it back. It fails when ctx ends first.
func (t *TerminalDecider) Turn(ctx context.Context) (func(), error) {
	select {
	case t.turn <- struct{}{}:
		return func() { <-t.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readLines reads In on one goroutine for the decider's lifetime, so a stop does not
// leave a reader behind per question.
func (t *TerminalDecider) readLines() {
	t.lines = make(chan string)
	go func() {
		sc := bufio.NewScanner(t.in)
		for sc.Scan() {
			t.lines <- sc.Text()
		}
		close(t.lines)
	}()
}

// Decide asks (or answers by itself) about one request.
func (t *TerminalDecider) Decide(ctx context.Context, r Request) (Choice, string, error) {
	switch t.mode {
	case ApproveAllow:
		fmt.Fprintf(t.out, "Allowed %s (--approve allow).\n", describe(r))
		return AllowOnce, "", nil
	case ApproveDeny:
		fmt.Fprintf(t.out, "Denied %s (--approve deny).\n", describe(r))
		return Deny, "denied by --approve deny", nil
	}
	release, err := t.Turn(ctx)
	if err != nil {
		return "", "", err
	}
	defer release()
	lines := t.Lines()
	left := t.prompt(r, false)
	for {
		select {
		case <-ctx.Done():
			return "", "", ctx.Err()
		case line, ok := <-lines:
			if !ok {
				fmt.Fprintln(t.out)
				return Deny, "nobody answered on the terminal", nil
			}
			if w := strings.ToLower(strings.TrimSpace(line)); left > 0 && (w == "m" || w == "more") {
				left = t.prompt(r, true)
				continue
			}
			if c, reason, ok := parseAnswer(line, len(r.Rules) > 0); ok {
				return c, reason, nil
			}
			more := ""
			if left > 0 {
				more = ", m (show everything)"
			}
			fmt.Fprintf(t.out, "Answer y (once), s (this session), a (always), n [reason] (deny)%s: ", more)
		}
	}
}

func describe(r Request) string {
	s := r.Tool
	if r.Server != "" {
		s += " (" + r.Server + ")"
	}
	if r.Agent != nil {
		s += ", from sub-agent " + r.Agent.Name
	}
	return termtext.Line(s)
}

// previewLines is how many lines one value of the prompt shows before it says how many
// characters are left and offers to show them (answer m).
const previewLines = 40

// defaultWidth is the prompt's width when the terminal's is not known.
const defaultWidth = 100

// prompt shows what the call will do. Every value is escaped (a carriage return, an ESC
// sequence or a bidi override in an argument is shown, not obeyed) and wrapped, never
// cut: with full false a long value stops after previewLines lines with the number of
// characters left. It returns how many characters it left out.
func (t *TerminalDecider) prompt(r Request, full bool) int {
	var b strings.Builder
	fmt.Fprintf(&b, "\nApproval needed: %s", describe(r))
	if r.Destructive {
		b.WriteString(" [destructive]")
	}
	b.WriteString("\n")
	left := 0
	field := func(label string, lines ...string) { left += t.field(&b, label, lines, full) }
	for _, c := range r.Touches.Commands {
		field("  command: ", c)
	}
	if r.Touches.Cwd != "" {
		field("  in:      ", r.Touches.Cwd)
	}
	for _, p := range r.Touches.Paths {
		field("  path:    ", p)
	}
	for _, u := range r.Touches.URLs {
		field("  url:     ", u)
	}
	if len(r.Touches.Commands) == 0 {
		field("  arguments: ", argLines(r.Args)...)
	}
	if r.AskReason != "" {
		field("  why asked: ", r.AskReason)
	}
	if left > 0 {
		fmt.Fprintf(&b, "  (%s more characters not shown: answer m to show everything)\n", termtext.Count(left))
	}
	if len(r.Rules) > 0 {
		b.WriteString("Allow? [y] once, [s] this session, [a] always, [n] deny (n <reason>): ")
	} else {
		b.WriteString("Allow? [y] once, [n] deny (n <reason>): ")
	}
	io.WriteString(t.out, b.String())
	return left
}

// field writes one labelled value, its lines wrapped under the label; it returns how
// many characters it left out.
func (t *TerminalDecider) field(b *strings.Builder, label string, lines []string, full bool) int {
	width := t.Width
	if width <= 0 {
		width = defaultWidth
	}
	width -= len(label)
	indent := strings.Repeat(" ", len(label))
	shown, left := 0, 0
	for _, l := range lines {
		if !full && shown >= previewLines {
			left += utf8.RuneCountInString(l)
			continue
		}
		limit := 0
		if !full {
			limit = (previewLines - shown) * width
		}
		pieces, more := termtext.Wrap(l, width, limit)
		for _, p := range pieces {
			if shown == 0 {
				b.WriteString(label)
			} else {
				b.WriteString(indent)
			}
			b.WriteString(p)
			b.WriteString("\n")
			shown++
		}
		left += more
	}
	return left
}

// argLines are the call's arguments as indented JSON, one entry per line. json.Indent
// keeps the model's text as sent (json.MarshalIndent would rewrite < > & as \u003c …).
func argLines(args json.RawMessage) []string {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, args, "", "  "); err != nil {
		pretty.Reset()
		pretty.Write(args)
	}
	return strings.Split(pretty.String(), "\n")
}

// parseAnswer reads one terminal answer; rules says whether s and a are offered.
func parseAnswer(line string, rules bool) (Choice, string, bool) {
	word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch strings.ToLower(word) {
	case "y", "yes", "o", "once":
		return AllowOnce, "", true
	case "s", "session":
		return AllowSession, "", rules
	case "a", "always":
		return AllowAlways, "", rules
	case "n", "no", "d", "deny":
		return Deny, strings.TrimSpace(rest), true
	}
	return "", "", false
}

// Source is what Attend needs of an approval service: this process's own, or the
// running owner's reached through its control socket.
type Source interface {
	// PendingForSession lists the session's requests waiting for a decision.
	PendingForSession(ctx context.Context, sessionID string) ([]Request, error)
	// Current is the request as it stands now.
	Current(ctx context.Context, r Request) (Request, error)
	Decide(ctx context.Context, id, choice, reason, window string) (Request, error)
}

// Attend answers the requests of one session with d until ctx ends: those already
// pending, then each new one as it is announced. A request another window decided
// first is reported on out and skipped. window names this client in the audit log.
func (s *Service) Attend(ctx context.Context, sessionID string, d Decider, window string, out io.Writer) error {
	sub := s.bus.Subscribe(256)
	defer sub.Close()
	return AttendVia(ctx, localSource{s}, sub.C, sub.Dropped, sessionID, d, window, out)
}

// Source is this service as AttendVia's Source.
func (s *Service) Source() Source { return localSource{s} }

// localSource is the Source of this process's own service.
type localSource struct{ s *Service }

func (l localSource) PendingForSession(ctx context.Context, sessionID string) ([]Request, error) {
	return l.s.PendingForSession(ctx, sessionID)
}

func (l localSource) Current(ctx context.Context, r Request) (Request, error) {
	return l.s.Get(ctx, r.ID)
}

func (l localSource) Decide(ctx context.Context, id, choice, reason, window string) (Request, error) {
	return l.s.Decide(ctx, id, choice, reason, window)
}

// AttendVia is Attend over any Source, with evs the events of its bus subscribed before
// the call and dropped saying whether some were lost (a resync event says so too). One
// request is asked at a time; when another window decides it first, the question ends
// and out says who answered.
func AttendVia(ctx context.Context, src Source, evs <-chan events.Event, dropped func() bool, sessionID string, d Decider, window string, out io.Writer) error {
	a := &attendance{src: src, d: d, window: window, out: out, seen: map[string]bool{}, answers: make(chan asked, 1)}
	defer a.stopAsking()
	if err := a.load(ctx, sessionID); err != nil {
		return err
	}
	for {
		a.next(ctx)
		select {
		case <-ctx.Done():
			return nil
		case ans := <-a.answers:
			if err := a.settle(ctx, ans); err != nil {
				return err
			}
		case ev, ok := <-evs:
			if !ok {
				return nil
			}
			if ev.Type == events.TypeResync || dropped() {
				// Lost events: look at the table again.
				if err := a.load(ctx, sessionID); err != nil {
					return err
				}
			}
			if ev.Topic != events.TopicApprovals {
				continue
			}
			var r Request
			if json.Unmarshal(ev.Data, &r) != nil || r.SessionID != sessionID {
				continue
			}
			switch ev.Type {
			case EventRequested:
				a.enqueue(r)
			case EventDecided:
				a.decidedElsewhere(r)
			}
		}
	}
}

// attendance is AttendVia's state: the requests waiting to be asked, and the one being
// asked now.
type attendance struct {
	src     Source
	d       Decider
	window  string
	out     io.Writer
	seen    map[string]bool
	queue   []Request
	asking  string             // the request on the terminal now
	cancel  context.CancelFunc // ends that question
	answers chan asked
}

// asked is the decider's answer to one request.
type asked struct {
	id     string
	choice Choice
	reason string
	err    error
}

func (a *attendance) load(ctx context.Context, sessionID string) error {
	pending, err := a.src.PendingForSession(ctx, sessionID)
	if err != nil {
		return err
	}
	for _, r := range pending {
		a.enqueue(r)
	}
	return nil
}

func (a *attendance) enqueue(r Request) {
	if a.seen[r.ID] {
		return
	}
	a.seen[r.ID] = true
	a.queue = append(a.queue, r)
}

// next starts asking the next request still pending, unless one is being asked.
func (a *attendance) next(ctx context.Context) {
	for a.asking == "" && len(a.queue) > 0 {
		r := a.queue[0]
		a.queue = a.queue[1:]
		cur, err := a.src.Current(ctx, r)
		if err != nil || cur.Status != StatusPending {
			continue
		}
		qctx, cancel := context.WithCancel(ctx)
		a.asking, a.cancel = cur.ID, cancel
		go func() {
			c, reason, err := a.d.Decide(qctx, cur)
			a.answers <- asked{id: cur.ID, choice: c, reason: reason, err: err}
		}()
	}
}

func (a *attendance) stopAsking() {
	if a.cancel != nil {
		a.cancel()
		if a.asking != "" {
			<-a.answers
		}
	}
}

// settle records the terminal's answer; one given after another window's is reported.
func (a *attendance) settle(ctx context.Context, ans asked) error {
	if ans.id == a.asking {
		a.asking = ""
		a.cancel()
	}
	if ans.err != nil {
		if ctx.Err() != nil || errors.Is(ans.err, context.Canceled) {
			return nil // decided elsewhere, or the command ends
		}
		return ans.err
	}
	if _, err := a.src.Decide(ctx, ans.id, string(ans.choice), ans.reason, a.window); err != nil {
		if apperr.Is(err, apperr.ApprovalAlreadyDecided) || apperr.Is(err, apperr.ApprovalInterrupted) {
			if a.out != nil {
				fmt.Fprintf(a.out, "Already answered elsewhere: %s\n", termtext.Line(err.Error()))
			}
			return nil
		}
		return err
	}
	return nil
}

// decidedElsewhere ends the question about r when another window decided it, and says
// so for every request of the session this terminal knew of.
func (a *attendance) decidedElsewhere(r Request) {
	if !a.seen[r.ID] || r.Status == StatusPending || r.Window == a.window {
		return
	}
	if r.ID == a.asking {
		a.cancel()
	}
	if a.out != nil {
		if r.Decision != "" {
			fmt.Fprintf(a.out, "\nAnswered in %s: %s\n", termtext.Line(r.Window), termtext.Line(string(r.Decision)))
		} else {
			fmt.Fprintf(a.out, "\nNo longer waiting: %s\n", termtext.Line(string(r.Status)))
		}
	}
}
