package approval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
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
	mode string
	in   io.Reader
	out  io.Writer

	once  sync.Once
	lines chan string // closed when In ends
}

// NewTerminalDecider returns the decider of `--approve ask|allow|deny`.
func NewTerminalDecider(mode string, in io.Reader, out io.Writer) (*TerminalDecider, error) {
	switch mode {
	case ApproveAsk, ApproveAllow, ApproveDeny:
	default:
		return nil, apperr.New(apperr.InvalidArgument, "--approve must be ask, allow or deny, not %q", mode).
			WithParam("message", "--approve must be ask, allow or deny")
	}
	return &TerminalDecider{mode: mode, in: in, out: out}, nil
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
	t.once.Do(t.readLines)
	t.prompt(r)
	for {
		select {
		case <-ctx.Done():
			return "", "", ctx.Err()
		case line, ok := <-t.lines:
			if !ok {
				fmt.Fprintln(t.out)
				return Deny, "nobody answered on the terminal", nil
			}
			if c, reason, ok := parseAnswer(line, len(r.Rules) > 0); ok {
				return c, reason, nil
			}
			fmt.Fprint(t.out, "Answer y (once), s (this session), a (always) or n [reason] (deny): ")
		}
	}
}

func describe(r Request) string {
	s := r.Tool
	if r.Server != "" {
		s += " (" + r.Server + ")"
	}
	return s
}

func (t *TerminalDecider) prompt(r Request) {
	w := t.out
	fmt.Fprintf(w, "\nApproval needed: %s", describe(r))
	if r.Destructive {
		fmt.Fprint(w, " [destructive]")
	}
	fmt.Fprintln(w)
	for _, c := range r.Touches.Commands {
		fmt.Fprintf(w, "  command: %s\n", c)
	}
	if r.Touches.Cwd != "" {
		fmt.Fprintf(w, "  in:      %s\n", r.Touches.Cwd)
	}
	for _, p := range r.Touches.Paths {
		fmt.Fprintf(w, "  path:    %s\n", p)
	}
	for _, u := range r.Touches.URLs {
		fmt.Fprintf(w, "  url:     %s\n", u)
	}
	if len(r.Touches.Commands) == 0 {
		var pretty strings.Builder
		if b, err := json.MarshalIndent(r.Args, "  ", "  "); err == nil {
			pretty.Write(b)
		} else {
			pretty.Write(r.Args)
		}
		fmt.Fprintf(w, "  arguments: %s\n", pretty.String())
	}
	if r.AskReason != "" {
		fmt.Fprintf(w, "  why asked: %s\n", r.AskReason)
	}
	if len(r.Rules) > 0 {
		fmt.Fprint(w, "Allow? [y] once, [s] this session, [a] always, [n] deny (n <reason>): ")
	} else {
		fmt.Fprint(w, "Allow? [y] once, [n] deny (n <reason>): ")
	}
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

// Attend answers the requests of one session with d until ctx ends: those already
// pending, then each new one as it is announced. A request another window decided
// first is reported on out and skipped. window names this client in the audit log.
func (s *Service) Attend(ctx context.Context, sessionID string, d Decider, window string, out io.Writer) error {
	sub := s.bus.Subscribe(256)
	defer sub.Close()
	pending, err := s.PendingForSession(ctx, sessionID)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	answer := func(r Request) error {
		if seen[r.ID] {
			return nil
		}
		seen[r.ID] = true
		cur, err := s.Get(ctx, r.ID)
		if err != nil || cur.Status != StatusPending {
			return nil
		}
		c, reason, err := d.Decide(ctx, cur)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if _, err := s.Decide(ctx, cur.ID, string(c), reason, window); err != nil {
			if apperr.Is(err, apperr.ApprovalAlreadyDecided) || apperr.Is(err, apperr.ApprovalInterrupted) {
				if out != nil {
					fmt.Fprintf(out, "Already answered elsewhere: %s\n", err.Error())
				}
				return nil
			}
			return err
		}
		return nil
	}
	for _, r := range pending {
		if err := answer(r); err != nil {
			return err
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sub.C:
			if !ok {
				return nil
			}
			if sub.Dropped() {
				// Lost events: look at the table again.
				again, err := s.PendingForSession(ctx, sessionID)
				if err != nil {
					return err
				}
				for _, r := range again {
					if err := answer(r); err != nil {
						return err
					}
				}
			}
			if ev.Topic != events.TopicApprovals || ev.Type != EventRequested {
				continue
			}
			var r Request
			if json.Unmarshal(ev.Data, &r) != nil || r.SessionID != sessionID {
				continue
			}
			if err := answer(r); err != nil {
				return err
			}
		}
	}
}
