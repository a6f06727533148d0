package assistants

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
)

// Sessions creates the conversation an assistant starts (chat.Service), and removes it
// again when the assistant's knowledge bases or skills cannot be applied.
type Sessions interface {
	CreateSession(ctx context.Context, in chat.SessionInput) (chat.Session, error)
	DeleteSession(ctx context.Context, id string) error
}

// Toolsets names the toolsets a session may enable (capability.List).
type Toolsets interface{ Choosable() []string }

// Providers finds a provider by id or name (llm.Service).
type Providers interface {
	Get(ctx context.Context, ref string) (llm.Provider, error)
}

// KBs is the knowledge base service as assistants use it: through its own methods, never
// its tables.
type KBs interface {
	Exists(ctx context.Context, id string) (bool, error)
	Attach(ctx context.Context, sessionID string, ids []string) error
}

// Skills is the skills service as assistants use it: the conversation's own choice.
type Skills interface {
	Exists(ctx context.Context, name string) (bool, error)
	TurnOn(ctx context.Context, sessionID, name string) error
}

// Config is what the service works with. KBs and Skills may be nil (a Cairn without those
// capabilities): an assistant then cannot name any.
type Config struct {
	DB        *sql.DB
	Bus       *events.Bus
	Sessions  Sessions
	Toolsets  Toolsets
	Providers Providers
	KBs       KBs
	Skills    Skills
}

// Service keeps the user's assistants and starts conversations from any assistant.
type Service struct {
	db  *sql.DB
	cfg Config
}

// New returns the service over an opened database (migration 0028 applied).
func New(cfg Config) *Service { return &Service{db: cfg.DB, cfg: cfg} }

// List is every assistant: the built-in ones, then the user's in the order they were made.
func (s *Service) List(ctx context.Context) (List, error) {
	seq := s.cfg.Bus.Seq(Topic)
	all, err := s.all(ctx)
	if err != nil {
		return List{}, err
	}
	return List{Seq: seq, Assistants: all}, nil
}

func (s *Service) all(ctx context.Context) ([]Assistant, error) {
	own, err := s.stored(ctx)
	if err != nil {
		return nil, err
	}
	hidden, err := s.hidden(ctx)
	if err != nil {
		return nil, err
	}
	choosable := s.cfg.Toolsets.Choosable()
	out := []Assistant{}
	for _, a := range builtins() {
		a.Builtin = true
		a.Toolsets = slices.DeleteFunc(a.Toolsets, func(t string) bool { return !slices.Contains(choosable, t) })
		a.KBs, a.Skills = []string{}, []string{}
		out = append(out, a)
	}
	out = append(out, own...)
	for i := range out {
		out[i].Hidden = hidden[out[i].ID]
	}
	return out, nil
}

// Get finds an assistant by id, else by name (case-insensitive; `cairn chat --assistant`).
func (s *Service) Get(ctx context.Context, ref string) (Assistant, error) {
	all, err := s.all(ctx)
	if err != nil {
		return Assistant{}, err
	}
	for _, a := range all {
		if a.ID == ref {
			return a, nil
		}
	}
	want := strings.TrimSpace(ref)
	for _, a := range all {
		if strings.EqualFold(a.Name, want) {
			return a, nil
		}
	}
	return Assistant{}, notFound(ref)
}

// Save creates (id "") or changes one of the user's assistants. Built-in ones cannot be
// changed: Copy one first.
func (s *Service) Save(ctx context.Context, id string, in Input) (Assistant, error) {
	a := Assistant{ID: id}
	if id != "" {
		cur, err := s.Get(ctx, id)
		if err != nil || cur.ID != id {
			return Assistant{}, notFound(id)
		}
		if cur.Builtin {
			return Assistant{}, builtinErr(cur)
		}
		a = cur
	}
	if err := s.apply(ctx, &a, in); err != nil {
		return Assistant{}, err
	}
	a.UpdatedAt = time.Now().UnixMilli()
	var err error
	if a.ID == "" {
		a.ID, a.CreatedAt = newID(), a.UpdatedAt
		err = s.insert(ctx, a)
	} else {
		err = s.update(ctx, a)
	}
	if err != nil {
		return Assistant{}, err
	}
	s.changed(ctx)
	return s.Get(ctx, a.ID)
}

// Copy makes a user's assistant from any assistant, named "<name> (copy)" (numbered when
// taken), so a built-in one can be changed.
func (s *Service) Copy(ctx context.Context, id string) (Assistant, error) {
	src, err := s.Get(ctx, id)
	if err != nil || src.ID != id {
		return Assistant{}, notFound(id)
	}
	all, err := s.all(ctx)
	if err != nil {
		return Assistant{}, err
	}
	in := Input{Name: copyName(src.Name, all), Icon: src.Icon, Description: src.Description, Instructions: src.Instructions,
		ProviderID: src.ProviderID, Model: src.Model, Temperature: src.Temperature, TopP: src.TopP, MaxTokens: src.MaxTokens,
		ContextMessages: src.ContextMessages, Toolsets: src.Toolsets, KBs: src.KBs, Skills: src.Skills}
	return s.Save(ctx, "", in)
}

func copyName(name string, all []Assistant) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(all, func(a Assistant) bool { return strings.EqualFold(a.Name, n) })
	}
	base := truncate(name, MaxName-10)
	out := base + " (copy)"
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s (copy %d)", base, i)
	}
	return out
}

// Delete removes one of the user's assistants; conversations started from it keep its
// name and icon. Built-in ones can only be hidden.
func (s *Service) Delete(ctx context.Context, id string) error {
	a, err := s.Get(ctx, id)
	if err != nil || a.ID != id {
		return notFound(id)
	}
	if a.Builtin {
		return builtinErr(a)
	}
	if err := s.remove(ctx, id); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}

// SetHidden keeps an assistant out of the New chat picker, or brings it back.
func (s *Service) SetHidden(ctx context.Context, id string, hidden bool) (Assistant, error) {
	a, err := s.Get(ctx, id)
	if err != nil || a.ID != id {
		return Assistant{}, notFound(id)
	}
	if err := s.setHidden(ctx, id, hidden); err != nil {
		return Assistant{}, err
	}
	s.changed(ctx)
	a.Hidden = hidden
	return a, nil
}

func (s *Service) changed(ctx context.Context) {
	all, err := s.all(ctx)
	if err != nil {
		return
	}
	s.cfg.Bus.Publish(Topic, TypeChanged, List{Assistants: all})
}

func builtinErr(a Assistant) *apperr.Error {
	return apperr.New(apperr.AssistantBuiltin, "%s is built in: copy it to change it", a.Name).WithParam("name", a.Name)
}
