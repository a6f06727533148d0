package assistants

import (
	"context"
	"slices"

	"github.com/cairn-app/cairn/backend/chat"
)

// Toolsets an assistant's knowledge bases and skills need on.
const (
	toolsetKB    = "kb"
	toolsetSkill = "skill"
)

// Start creates a conversation from an assistant: its instructions as the system prompt,
// its provider, model and parameters, its toolsets, knowledge bases and skills. What the
// assistant names that no longer exists (a deleted knowledge base or skill) is left out
// and reported; a deleted provider fails the start before anything is made.
func (s *Service) Start(ctx context.Context, ref string) (Started, error) {
	a, err := s.Get(ctx, ref)
	if err != nil {
		return Started{}, err
	}
	out := Started{MissingKBs: []string{}, MissingSkills: []string{}}
	kbs, err := s.present(ctx, a.KBs, s.kbExists, &out.MissingKBs)
	if err != nil {
		return Started{}, err
	}
	skills, err := s.present(ctx, a.Skills, s.skillExists, &out.MissingSkills)
	if err != nil {
		return Started{}, err
	}
	sess, err := s.cfg.Sessions.CreateSession(ctx, chat.SessionInput{
		Kind: chat.KindChat, ProviderID: a.ProviderID, Model: a.Model, SystemPrompt: a.Instructions,
		Temperature: a.Temperature, TopP: a.TopP, MaxTokens: a.MaxTokens, ContextMessages: a.ContextMessages,
		Toolsets: s.toolsetsFor(a, len(kbs) > 0, len(skills) > 0),
	})
	if err != nil {
		return Started{}, err
	}
	if err := s.applyTo(ctx, sess.ID, a, kbs, skills); err != nil {
		_ = s.cfg.Sessions.DeleteSession(context.WithoutCancel(ctx), sess.ID)
		return Started{}, err
	}
	out.SessionID = sess.ID
	return out, nil
}

// toolsetsFor is the assistant's toolsets that this Cairn has, with the knowledge-base and
// skill toolsets on when it attaches any.
func (s *Service) toolsetsFor(a Assistant, kbs, skills bool) []string {
	valid := s.cfg.Toolsets.Choosable()
	out := slices.DeleteFunc(slices.Clone(a.Toolsets), func(t string) bool { return !slices.Contains(valid, t) })
	for _, need := range []struct {
		on   bool
		name string
	}{{kbs, toolsetKB}, {skills, toolsetSkill}} {
		if need.on && slices.Contains(valid, need.name) && !slices.Contains(out, need.name) {
			out = append(out, need.name)
		}
	}
	slices.Sort(out)
	return out
}

// present splits refs into those that exist (returned) and those that are gone (missing).
func (s *Service) present(ctx context.Context, refs []string, exists func(context.Context, string) (bool, error), missing *[]string) ([]string, error) {
	out := []string{}
	for _, r := range refs {
		ok, err := exists(ctx, r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		} else {
			*missing = append(*missing, r)
		}
	}
	return out, nil
}

func (s *Service) applyTo(ctx context.Context, sessionID string, a Assistant, kbs, skills []string) error {
	if err := s.link(ctx, sessionID, a); err != nil {
		return err
	}
	if len(kbs) > 0 {
		if err := s.cfg.KBs.Attach(ctx, sessionID, kbs); err != nil {
			return err
		}
	}
	for _, name := range skills {
		if err := s.cfg.Skills.TurnOn(ctx, sessionID, name); err != nil {
			return err
		}
	}
	return nil
}

// SessionAssistant is the assistant a conversation was started from; nil when none.
func (s *Service) SessionAssistant(ctx context.Context, sessionID string) (*Link, error) {
	l, ok, err := s.linked(ctx, sessionID)
	if err != nil || !ok {
		return nil, err
	}
	a, err := s.Get(ctx, l.AssistantID)
	if err == nil && a.ID == l.AssistantID {
		l.Name, l.Icon, l.Builtin = a.Name, a.Icon, a.Builtin
	} else {
		l.Deleted = true
	}
	return &l, nil
}
