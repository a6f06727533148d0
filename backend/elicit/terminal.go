package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/termtext"
)

// Terminal is the input `cairn chat` shares between its questions (approval's
// TerminalDecider): its lines, and a turn so one question reads at a time.
type Terminal interface {
	Lines() <-chan string
	Turn(ctx context.Context) (func(), error)
}

// TerminalAsker fills in a server's form on a terminal: it asks accept / decline /
// cancel, then each field in turn (an empty line takes the default), re-asking a value
// that does not fit. With interactive false (`--approve allow|deny`: nobody is at the
// terminal) it declines every form at once.
type TerminalAsker struct {
	term        Terminal
	out         io.Writer
	interactive bool
}

// NewTerminalAsker returns the asker of one `cairn chat`.
func NewTerminalAsker(term Terminal, out io.Writer, interactive bool) *TerminalAsker {
	return &TerminalAsker{term: term, out: out, interactive: interactive}
}

// errStop is a field answer of !decline or !cancel.
type errStop struct{ action Action }

func (e errStop) Error() string { return string(e.action) }

// Ask answers one request; ctx ends the question (another window answered first).
func (a *TerminalAsker) Ask(ctx context.Context, r Request) (Action, map[string]any, error) {
	if !a.interactive {
		fmt.Fprintf(a.out, "Declined the form of %s (nobody answers on this terminal).\n", termtext.Line(r.Server))
		return Decline, nil, nil
	}
	release, err := a.term.Turn(ctx)
	if err != nil {
		return "", nil, err
	}
	defer release()
	fmt.Fprintf(a.out, "\n%s asks for input:\n  %s\n", termtext.Line(r.Server), strings.ReplaceAll(termtext.Text(r.Message), "\n", "\n  "))
	choice := "[f] fill in the form"
	if len(r.Fields) == 0 {
		choice = "[a] accept"
	}
	for {
		fmt.Fprintf(a.out, "Answer? %s, [d] decline, [c] cancel: ", choice)
		line, err := a.line(ctx)
		if err == nil && strings.Contains(" f a y yes accept fill ", " "+strings.ToLower(strings.TrimSpace(line))+" ") {
			var content map[string]any
			if content, err = a.fill(ctx, r.Fields); err == nil {
				return Accept, content, nil
			}
		}
		var stop errStop
		if errors.As(err, &stop) {
			return stop.action, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "d", "n", "no", "decline":
			return Decline, nil, nil
		case "c", "cancel":
			return Cancel, nil, nil
		}
	}
}

// line reads one line; the end of input is a cancel (errStop).
func (a *TerminalAsker) line(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-a.term.Lines():
		if !ok {
			fmt.Fprintln(a.out)
			return "", errStop{Cancel}
		}
		return l, nil
	}
}

// fill asks every field until each answer fits; the result is what the form sends.
func (a *TerminalAsker) fill(ctx context.Context, fields []Field) (map[string]any, error) {
	fmt.Fprintln(a.out, "  (an empty line keeps the default; !decline or !cancel stops)")
	content := map[string]any{}
	for _, f := range fields {
		for {
			fmt.Fprint(a.out, prompt(f))
			line, err := a.line(ctx)
			if err != nil {
				return nil, err
			}
			switch strings.TrimSpace(line) {
			case "!decline":
				return nil, errStop{Decline}
			case "!cancel":
				return nil, errStop{Cancel}
			}
			v, err := parseValue(f, strings.TrimSpace(line))
			if err == nil {
				if v == nil {
					delete(content, f.Name)
				} else {
					content[f.Name] = v
				}
				if _, err = Check([]Field{f}, content); err == nil {
					break
				}
			}
			fmt.Fprintf(a.out, "  %s\n", termtext.Line(reasonText(err)))
		}
	}
	return Check(fields, content)
}

// prompt is one field's question: its title (or name), a required mark, its
// description, the choices and the default.
func prompt(f Field) string {
	var b strings.Builder
	b.WriteString("  " + termtext.Line(cmpOr(f.Title, f.Name)))
	if f.Required {
		b.WriteString(" (required)")
	}
	if f.Description != "" {
		b.WriteString(" — " + termtext.Line(f.Description))
	}
	for i, o := range f.Options {
		fmt.Fprintf(&b, "\n    %d) %s", i+1, termtext.Line(cmpOr(o.Title, o.Value)))
	}
	switch f.Kind {
	case KindBoolean:
		b.WriteString(" [y/n]")
	case KindMulti:
		b.WriteString("\n    numbers separated by commas")
	case KindEnum:
		b.WriteString("\n    number")
	}
	if d := defaultText(f); d != "" {
		b.WriteString(" (default " + termtext.Line(d) + ")")
	}
	b.WriteString(": ")
	return b.String()
}

func defaultText(f Field) string {
	switch d := f.Default.(type) {
	case nil:
		return ""
	case bool:
		return map[bool]string{true: "y", false: "n"}[d]
	case []any:
		parts := make([]string, len(d))
		for i, x := range d {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ", ")
	default:
		return fmt.Sprint(d)
	}
}

// parseValue reads one typed answer; "" is the default (nil: left out).
func parseValue(f Field, s string) (any, error) {
	if s == "" {
		if f.Kind == KindBoolean && f.Default == nil {
			return false, nil
		}
		return f.Default, nil
	}
	switch f.Kind {
	case KindBoolean:
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, invalid(f, "boolean", "not y or n")
	case KindNumber, KindInteger:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, invalid(f, "number", "not a number")
		}
		return n, nil
	case KindEnum:
		return choice(f, s)
	case KindMulti:
		var out []any
		for _, part := range strings.Split(s, ",") {
			v, err := choice(f, strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return s, nil
}

// choice reads a choice by its number, value or title.
func choice(f Field, s string) (any, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.Options) {
		return f.Options[n-1].Value, nil
	}
	for _, o := range f.Options {
		if strings.EqualFold(o.Value, s) || o.Title != "" && strings.EqualFold(o.Title, s) {
			return o.Value, nil
		}
	}
	return nil, invalid(f, "choice", "not one of the choices")
}

// reasonText says on the terminal why an answer does not fit.
func reasonText(err error) string {
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		return err.Error()
	}
	return map[string]string{
		"required": "This is required.", "boolean": "Answer y or n.", "number": "Enter a number.",
		"integer": "Enter a whole number.", "range": "The number is out of range.", "choice": "Choose one of the numbers shown.",
		"count": "Choose a different number of options.", "length": "The text is too short or too long.",
		"format": "That is not in the form asked for.", "text": "Enter text.",
	}[fmt.Sprint(ae.Params["reason"])]
}

// Source is what AttendVia needs of a broker: this process's own, or the running
// owner's reached through its control socket.
type Source interface {
	Pending(ctx context.Context) (Pending, error)
	Answer(ctx context.Context, id string, action Action, content map[string]any, window string) (Request, error)
}

// AttendVia answers the session's questions with a until ctx ends: those already open,
// then each new one as it is announced, one at a time. A question answered elsewhere
// first ends on the terminal with who answered. evs are the bus's events subscribed
// before the call; dropped says whether some were lost (a resync event says so too).
func AttendVia(ctx context.Context, src Source, evs <-chan events.Event, dropped func() bool, sessionID string, a *TerminalAsker, window string, out io.Writer) error {
	t := &attendance{src: src, a: a, window: window, out: out, session: sessionID, seen: map[string]bool{}, answers: make(chan given, 1)}
	defer t.stop()
	if err := t.load(ctx); err != nil {
		return err
	}
	for {
		t.next(ctx)
		select {
		case <-ctx.Done():
			return nil
		case g := <-t.answers:
			t.settle(ctx, g)
		case ev, ok := <-evs:
			if !ok {
				return nil
			}
			if ev.Type == events.TypeResync || dropped() {
				if err := t.load(ctx); err != nil {
					return err
				}
			}
			t.event(ev)
		}
	}
}

type given struct {
	id      string
	action  Action
	content map[string]any
	err     error
}

type attendance struct {
	src     Source
	a       *TerminalAsker
	window  string
	out     io.Writer
	session string
	seen    map[string]bool
	queue   []Request
	asking  string
	cancel  context.CancelFunc
	answers chan given
}

func (t *attendance) load(ctx context.Context) error {
	p, err := t.src.Pending(ctx)
	if err != nil {
		return err
	}
	for _, r := range p.Requests {
		t.enqueue(r)
	}
	return nil
}

func (t *attendance) enqueue(r Request) {
	if r.SessionID != t.session || r.Status != StatusPending || t.seen[r.ID] {
		return
	}
	t.seen[r.ID] = true
	t.queue = append(t.queue, r)
}

func (t *attendance) event(ev events.Event) {
	if ev.Topic != events.TopicElicitations {
		return
	}
	var r Request
	if json.Unmarshal(ev.Data, &r) != nil {
		return
	}
	switch ev.Type {
	case EventRequested:
		t.enqueue(r)
	case EventAnswered:
		t.answeredElsewhere(r)
	}
}

// next starts asking the next question, unless one is on the terminal.
func (t *attendance) next(ctx context.Context) {
	if t.asking != "" || len(t.queue) == 0 {
		return
	}
	r := t.queue[0]
	t.queue = t.queue[1:]
	qctx, cancel := context.WithCancel(ctx)
	t.asking, t.cancel = r.ID, cancel
	go func() {
		action, content, err := t.a.Ask(qctx, r)
		t.answers <- given{id: r.ID, action: action, content: content, err: err}
	}()
}

func (t *attendance) stop() {
	if t.cancel != nil {
		t.cancel()
		if t.asking != "" {
			<-t.answers
		}
	}
}

// settle sends the terminal's answer; one given after another window's is reported.
func (t *attendance) settle(ctx context.Context, g given) {
	if g.id == t.asking {
		t.asking = ""
		t.cancel()
	}
	if g.err != nil {
		if ctx.Err() == nil && !errors.Is(g.err, context.Canceled) && t.out != nil {
			fmt.Fprintf(t.out, "Not answered: %s\n", termtext.Line(g.err.Error()))
		}
		return // answered elsewhere, or the command ends
	}
	if _, err := t.src.Answer(ctx, g.id, g.action, g.content, t.window); err != nil && t.out != nil {
		fmt.Fprintf(t.out, "Not sent: %s\n", termtext.Line(err.Error()))
	}
}

// answeredElsewhere ends the question on the terminal when another window answered it
// or the server stopped waiting.
func (t *attendance) answeredElsewhere(r Request) {
	t.queue = deleteID(t.queue, r.ID)
	if r.ID != t.asking || r.Window == t.window {
		return
	}
	t.cancel()
	if t.out == nil {
		return
	}
	if r.Status == StatusEnded {
		fmt.Fprintf(t.out, "\n%s stopped waiting for an answer.\n", termtext.Line(r.Server))
	} else {
		fmt.Fprintf(t.out, "\nAnswered in %s: %s\n", termtext.Line(r.Window), termtext.Line(string(r.Status)))
	}
}

func deleteID(q []Request, id string) []Request {
	out := q[:0]
	for _, r := range q {
		if r.ID != id {
			out = append(out, r)
		}
	}
	return out
}
