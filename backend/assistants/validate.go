package assistants

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
)

// apply checks what the user wrote and copies it onto a; nothing is stored on error.
func (s *Service) apply(ctx context.Context, a *Assistant, in Input) error {
	name := cleanLine(in.Name)
	if err := s.checkName(ctx, a.ID, name); err != nil {
		return err
	}
	icon := strings.TrimSpace(in.Icon)
	if icon == "" {
		icon = Icons()[0]
	}
	if !slices.Contains(Icons(), icon) {
		return apperr.New(apperr.AssistantIconUnknown, "unknown icon %s", apperr.Quote(icon)).WithParam("icon", apperr.Quote(icon))
	}
	desc := cleanLine(in.Description)
	if utf8.RuneCountInString(desc) > MaxDescription {
		return tooLong("description", MaxDescription)
	}
	if utf8.RuneCountInString(in.Instructions) > MaxInstructions {
		return tooLong("instructions", MaxInstructions)
	}
	if err := checkParams(in); err != nil {
		return err
	}
	toolsets, err := s.checkToolsets(in.Toolsets)
	if err != nil {
		return err
	}
	provider, err := s.checkProvider(ctx, in.ProviderID)
	if err != nil {
		return err
	}
	kbs, skills, err := s.checkRefs(ctx, in.KBs, in.Skills)
	if err != nil {
		return err
	}
	a.Name, a.Icon, a.Description, a.Instructions = name, icon, desc, in.Instructions
	a.ProviderID, a.Model = provider, strings.TrimSpace(in.Model)
	a.Temperature, a.TopP, a.MaxTokens, a.ContextMessages = in.Temperature, in.TopP, in.MaxTokens, in.ContextMessages
	a.Toolsets, a.KBs, a.Skills = toolsets, kbs, skills
	return nil
}

func (s *Service) checkName(ctx context.Context, id, name string) error {
	if name == "" {
		return apperr.New(apperr.AssistantNameRequired, "an assistant needs a name")
	}
	if utf8.RuneCountInString(name) > MaxName {
		return tooLong("name", MaxName)
	}
	all, err := s.all(ctx)
	if err != nil {
		return err
	}
	for _, a := range all {
		if a.ID != id && strings.EqualFold(a.Name, name) {
			return apperr.New(apperr.AssistantNameTaken, "an assistant is already called %s", apperr.Quote(name)).WithParam("name", name)
		}
	}
	return nil
}

func checkParams(in Input) error {
	switch {
	case in.Temperature != nil && (*in.Temperature < 0 || *in.Temperature > 2):
		return rangeErr("temperature", 0, 2)
	case in.TopP != nil && (*in.TopP < 0 || *in.TopP > 1):
		return rangeErr("topP", 0, 1)
	case in.MaxTokens < 0 || in.MaxTokens > 1_000_000:
		return rangeErr("maxTokens", 0, 1_000_000)
	case in.ContextMessages < 0 || in.ContextMessages > 10_000:
		return rangeErr("contextMessages", 0, 10_000)
	}
	return nil
}

func (s *Service) checkToolsets(in []string) ([]string, error) {
	valid := s.cfg.Toolsets.Choosable()
	out := []string{}
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || slices.Contains(out, t) {
			continue
		}
		if !slices.Contains(valid, t) {
			return nil, apperr.New(apperr.AssistantToolsetUnknown, "unknown toolset %s", apperr.Quote(t)).
				WithParam("name", apperr.Quote(t)).WithParam("known", strings.Join(valid, ", "))
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// checkProvider resolves the provider a user named (id or name) to its id.
func (s *Service) checkProvider(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", nil
	}
	p, err := s.cfg.Providers.Get(ctx, ref)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// checkRefs refuses knowledge bases and skills that do not exist.
func (s *Service) checkRefs(ctx context.Context, kbs, skills []string) ([]string, []string, error) {
	kbs, skills = dedupe(kbs), dedupe(skills)
	if len(kbs) > MaxRefs || len(skills) > MaxRefs {
		return nil, nil, rangeErr("references", 0, MaxRefs)
	}
	for _, id := range kbs {
		if ok, err := s.kbExists(ctx, id); err != nil || !ok {
			return nil, nil, firstErr(err, apperr.New(apperr.KBNotFound, "no knowledge base %s", apperr.Quote(id)).WithParam("name", apperr.Quote(id)))
		}
	}
	for _, name := range skills {
		if ok, err := s.skillExists(ctx, name); err != nil || !ok {
			return nil, nil, firstErr(err, apperr.New(apperr.SkillNotFound, "no skill %s", apperr.Quote(name)).WithParam("name", apperr.Quote(name)))
		}
	}
	return kbs, skills, nil
}

func (s *Service) kbExists(ctx context.Context, id string) (bool, error) {
	if s.cfg.KBs == nil {
		return false, nil
	}
	return s.cfg.KBs.Exists(ctx, id)
}

func (s *Service) skillExists(ctx context.Context, name string) (bool, error) {
	if s.cfg.Skills == nil {
		return false, nil
	}
	return s.cfg.Skills.Exists(ctx, name)
}

func firstErr(err error, otherwise *apperr.Error) error {
	if err != nil {
		return err
	}
	return otherwise
}

func dedupe(in []string) []string {
	out := []string{}
	for _, v := range in {
		v = strings.TrimSpace(v)
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// cleanLine makes one line of a name or description: control characters become spaces,
// runs of space one.
func cleanLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func tooLong(field string, limit int) *apperr.Error {
	return apperr.New(apperr.AssistantTooLong, "the %s is longer than %d characters", field, limit).
		WithParam("field", field).WithParam("limit", limit)
}
