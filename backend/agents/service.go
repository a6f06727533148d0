package agents

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/tools"
)

// Conversations is what sub-agents need of the chat service (*chat.Service).
type Conversations interface {
	CreateChildSession(ctx context.Context, parentID, callID string, in chat.SessionInput) (chat.Session, error)
	RunChild(ctx context.Context, c chat.ChildRun) (chat.ChildResult, error)
}

// Settings is the part of the settings service the budgets are read from.
type Settings interface {
	Int(ctx context.Context, key string) int
	Duration(ctx context.Context, key string) time.Duration
}

// Config wires a Service. Settings nil uses the specs' defaults; Tools nil lists no
// sources; Bus nil announces nothing.
type Config struct {
	DB       *sql.DB
	Chat     Conversations
	Settings Settings
	Tools    *tools.Registry
	Bus      *events.Bus
	Log      *slog.Logger
	// Background starts a run_in_background child as a background task (the tasks
	// capability's service, found when a call needs it); nil refuses such calls.
	Background func() Background
}

// Service runs sub-agents and keeps their types.
type Service struct {
	db      *sql.DB
	chat    Conversations
	st      Settings
	reg     *tools.Registry
	bus     *events.Bus
	log     *slog.Logger
	bg      func() Background
	mu      sync.Mutex
	slots   int             // children running now
	freed   chan struct{}   // closed (and replaced) when a slot frees
	running map[string]bool // child sessions running in this process
}

// TopicAgents carries agents:types when the user's types change.
const TopicAgents = "agents"

// EventTypesChanged says the list of types changed: reload it (ListAgentTypes).
const EventTypesChanged = "agents:types"

// TypesChanged is the payload of agents:types.
type TypesChanged struct{}

// NewService returns the sub-agents' service.
func NewService(cfg Config) *Service {
	st := cfg.Settings
	if st == nil {
		st = defaults{}
	}
	return &Service{db: cfg.DB, chat: cfg.Chat, st: st, reg: cfg.Tools, bus: cfg.Bus, log: cfg.Log, bg: cfg.Background,
		freed: make(chan struct{}), running: map[string]bool{}}
}

// defaults answers with the specs' defaults where no settings service is wired.
type defaults struct{}

func (defaults) Int(_ context.Context, key string) int {
	for _, sp := range Capability().Settings {
		if sp.Key == key {
			v, _ := sp.Default.(int)
			return v
		}
	}
	return 0
}

func (defaults) Duration(_ context.Context, key string) time.Duration {
	for _, sp := range Capability().Settings {
		if sp.Key == key {
			s, _ := sp.Default.(string)
			d, _ := time.ParseDuration(s)
			return d
		}
	}
	return 0
}

func (s *Service) publishTypes() {
	if s.bus != nil {
		s.bus.Publish(TopicAgents, EventTypesChanged, TypesChanged{})
	}
}

// acquire waits for a free slot among agents.maxParallel (read at every wait, so a
// change applies at once) or the end of ctx.
func (s *Service) acquire(ctx context.Context) error {
	for {
		limit := max(s.st.Int(ctx, SettingMaxParallel), 1)
		s.mu.Lock()
		if s.slots < limit {
			s.slots++
			s.mu.Unlock()
			return nil
		}
		freed := s.freed
		s.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return apperr.Wrap(ctx.Err(), apperr.Canceled, "waiting for a sub-agent slot")
		}
	}
}

func (s *Service) release() {
	s.mu.Lock()
	s.slots--
	close(s.freed)
	s.freed = make(chan struct{})
	s.mu.Unlock()
}
