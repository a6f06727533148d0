// Package classifier is auto mode's judge: a model the user picks reads a call that would
// ask — the tool, its arguments, what it touches and the last messages of the
// conversation — and answers allow or ask. Everything it reads from the conversation and
// the call is hostile data: the prompt delimits and escapes it and says that nothing
// inside is an instruction, and only the exact JSON {"decision":"allow",...} allows; a
// late, malformed or failed answer asks the user.
package classifier

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/permission"
)

// The settings that pick the classifier and bound its time.
const (
	SettingProvider = "permissions.classifierProvider"
	SettingModel    = "permissions.classifierModel"
	SettingTimeout  = "permissions.classifierTimeout"
)

// defaultTimeout is used when the timeout setting cannot be read.
const defaultTimeout = 5 * time.Second

// Turn is one message of the recent conversation, as text.
type Turn struct {
	Role string
	Text string
}

// History reads a session's last messages (oldest first), at most n.
type History interface {
	Recent(ctx context.Context, sessionID string, n int) ([]Turn, error)
}

// Models resolves a provider and model to a client (*llm.Service).
type Models interface {
	Resolve(ctx context.Context, providerRef, model string) (llm.Target, error)
}

// Settings reads the classifier's settings (*settings.Service).
type Settings interface {
	String(ctx context.Context, key string) string
}

// Config wires a Classifier. Models and Settings are required; History is optional
// (without it the classifier sees no conversation). Timeout, when set, replaces the
// setting (tests).
type Config struct {
	Models   Models
	Settings Settings
	History  History
	Timeout  time.Duration
}

// Classifier implements approval.Classifier.
type Classifier struct{ cfg Config }

var _ approval.Classifier = (*Classifier)(nil)

// New returns a classifier.
func New(cfg Config) *Classifier { return &Classifier{cfg: cfg} }

// Classify asks the model about one call and never fails: every failure is an ask.
func (c *Classifier) Classify(ctx context.Context, call approval.ClassifierCall) permission.Verdict {
	provider := strings.TrimSpace(c.cfg.Settings.String(ctx, SettingProvider))
	model := strings.TrimSpace(c.cfg.Settings.String(ctx, SettingModel))
	if provider == "" && model == "" {
		return unavailable("no classifier model is chosen in Settings → Permissions")
	}
	target, err := c.cfg.Models.Resolve(ctx, provider, model)
	if err != nil {
		return unavailable("the classifier model cannot be used: " + clipRunes(err.Error(), 200))
	}
	var turns []Turn
	if c.cfg.History != nil && call.SessionID != "" {
		turns, _ = c.cfg.History.Recent(ctx, call.SessionID, recentTurns)
	}
	msgs, err := Prompt(call, turns)
	if err != nil {
		return unavailable("the call cannot be shown to the classifier")
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout(ctx))
	defer cancel()
	zero := 0.0
	res, err := target.Client.Stream(ctx, llm.Request{Model: target.Model.ID, Messages: msgs, Temperature: &zero, MaxTokens: 300}, llm.Handler{})
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ask(permission.ReasonClassifierLate, "auto mode: the classifier did not answer in time", nil)
	case err != nil:
		return unavailable("the classifier model failed: " + clipRunes(err.Error(), 200))
	}
	return Parse(res.Text)
}

func (c *Classifier) timeout(ctx context.Context) time.Duration {
	if c.cfg.Timeout > 0 {
		return c.cfg.Timeout
	}
	d, err := time.ParseDuration(c.cfg.Settings.String(ctx, SettingTimeout))
	if err != nil || d <= 0 {
		return defaultTimeout
	}
	return d
}

func ask(code, reason string, params map[string]string) permission.Verdict {
	return permission.Verdict{Behavior: permission.Ask, Source: permission.SourceClassifier, Reason: reason, ReasonCode: code, ReasonParams: params}
}

func unavailable(why string) permission.Verdict {
	return ask(permission.ReasonClassifierUnavailable, "auto mode: "+why, map[string]string{"reason": why})
}
