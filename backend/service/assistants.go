package service

import (
	"context"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/assistants"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/skills"
)

// openAssistants starts the assistants over chat and, through their services (never their
// tables), the knowledge bases and skills the capabilities opened.
func (s *Services) openAssistants() {
	cfg := assistants.Config{DB: s.DB.DB, Bus: s.Bus, Sessions: s.Chat, Toolsets: s.Capabilities, Providers: s.Providers}
	if k, ok := s.opened[kb.Name].(*kb.Service); ok && k != nil {
		cfg.KBs = assistantKBs{k}
	}
	if sk, ok := s.opened[skills.Name].(*skills.Service); ok && sk != nil {
		cfg.Skills = assistantSkills{sk}
	}
	s.Assistants = assistants.New(cfg)
}

// assistantKBs attaches an assistant's knowledge bases to the conversation it starts.
type assistantKBs struct{ s *kb.Service }

func (a assistantKBs) Exists(ctx context.Context, id string) (bool, error) {
	k, err := a.s.Get(ctx, id)
	if apperr.Is(err, apperr.KBNotFound) {
		return false, nil
	}
	return err == nil && k.ID == id, err
}

func (a assistantKBs) Attach(ctx context.Context, sessionID string, ids []string) error {
	_, err := a.s.SetSessionKBs(ctx, sessionID, ids)
	return err
}

// assistantSkills turns an assistant's skills on in the conversation it starts.
type assistantSkills struct{ s *skills.Service }

func (a assistantSkills) Exists(ctx context.Context, name string) (bool, error) {
	_, err := a.s.Get(ctx, name)
	if apperr.Is(err, apperr.SkillNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (a assistantSkills) TurnOn(ctx context.Context, sessionID, name string) error {
	_, err := a.s.SetSessionSkill(ctx, sessionID, name, "on")
	return err
}
