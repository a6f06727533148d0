package skills

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// The bus topic of skills and its events: the list changed (a folder changed, a switch
// was turned), or a conversation's own switches changed.
const (
	Topic              = "skills"
	TypeChanged        = "skills:changed"
	TypeSessionChanged = "skills:session"
)

// Setting keys.
const (
	SettingFolders     = "skills.folders"
	SettingOtherAgents = "skills.otherAgents"
	SettingBudget      = "skills.promptBudget"
)

// defaultPoll is how often the folders are looked at for changes: a readdir per folder
// and a stat per skill, cheap enough to run while Cairn does.
const defaultPoll = 2 * time.Second

// Settings is what the service reads of Cairn's settings.
type Settings interface {
	String(ctx context.Context, key string) string
	Int(ctx context.Context, key string) int
	Bool(ctx context.Context, key string) bool
}

// Config is what a Service is built from.
type Config struct {
	DataDir  string
	Home     string // the user's home, where other agents keep their skills ("": none)
	DB       *sql.DB
	Settings Settings
	Bus      *events.Bus
	Log      *slog.Logger
	// Poll is how often the folders are checked for changes (0: every 2 s).
	Poll time.Duration
}

// Service is the skills of one data directory: found in their folders, kept up to date
// by a watcher, switched globally and per conversation.
type Service struct {
	cfg   Config
	prefs prefs
	tok   tokenCounter
	// maxImport bounds an import's unpacked bytes (0: MaxImportBytes; tests lower it).
	maxImport int64

	mu      sync.RWMutex
	skills  []Skill
	sig     string
	scanned bool

	stop chan struct{}
	done chan struct{}
}

// SessionSkill is a skill as one conversation has it: on or off there, and whether that
// is the conversation's own choice or the global switch.
type SessionSkill struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	Own     bool   `json:"own"` // the conversation chose; else the global switch holds
	// Global is the global switch, which holds again when the conversation's choice goes.
	Global bool `json:"global"`
}

// SessionChanged says whose switches changed (TypeSessionChanged).
type SessionChanged struct {
	SessionID string `json:"sessionId"`
}

// New finds the skills and starts watching their folders; Close stops the watcher.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = defaultPoll
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, "skills"), 0o700); err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "create the skills folder")
	}
	s := &Service{cfg: cfg, prefs: prefs{db: cfg.DB}, stop: make(chan struct{}), done: make(chan struct{})}
	s.Rescan(ctx)
	go s.watch()
	return s, nil
}

// Close stops the watcher.
func (s *Service) Close() error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	return nil
}

func (s *Service) roots(ctx context.Context) []root {
	folders, others := "", true
	if s.cfg.Settings != nil {
		folders, others = s.cfg.Settings.String(ctx, SettingFolders), s.cfg.Settings.Bool(ctx, SettingOtherAgents)
	}
	return roots(s.cfg.DataDir, s.cfg.Home, folders, others)
}

// Rescan reads the folders again when anything in them changed, and reports whether it
// did; the watcher calls it, and so does every change Cairn makes itself.
func (s *Service) Rescan(ctx context.Context) bool {
	rs := s.roots(ctx)
	sig := signature(rs)
	s.mu.RLock()
	same := sig == s.sig && s.scanned
	s.mu.RUnlock()
	if same {
		return false
	}
	found := discover(rs)
	s.mu.Lock()
	s.skills, s.sig, s.scanned = found, sig, true
	s.mu.Unlock()
	for _, sk := range found {
		if sk.Error != "" {
			s.cfg.Log.Warn("skills: a skill cannot be used", "dir", sk.Dir, "err", sk.Error)
		}
	}
	s.publish(TypeChanged, nil)
	return true
}

func (s *Service) watch() {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.Rescan(context.Background())
		}
	}
}

func (s *Service) publish(typ string, data any) {
	if s.cfg.Bus != nil {
		s.cfg.Bus.Publish(Topic, typ, data)
	}
}

// snapshot is the skills as last found, each with its global switch.
func (s *Service) snapshot(ctx context.Context) ([]Skill, error) {
	on, err := s.prefs.global(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read skill switches")
	}
	s.mu.RLock()
	out := slices.Clone(s.skills)
	s.mu.RUnlock()
	for i := range out {
		out[i].Enabled = switchedOn(on, out[i].Name)
	}
	return out, nil
}

// switchedOn is a skill's global switch: on unless turned off.
func switchedOn(global map[string]bool, name string) bool {
	on, ok := global[name]
	return on || !ok
}

// List is every skill found, usable or not, in lookup order.
func (s *Service) List(ctx context.Context) ([]Skill, error) {
	out, err := s.snapshot(ctx)
	for i := range out {
		out[i].body = ""
	}
	return out, err
}

// Get is the skill of a name: the one used when several have it, else a broken one whose
// folder has that name.
func (s *Service) Get(ctx context.Context, name string) (Skill, error) {
	all, err := s.snapshot(ctx)
	if err != nil {
		return Skill{}, err
	}
	for _, sk := range all {
		if sk.Name == name && sk.ShadowedBy == "" {
			return sk, nil
		}
	}
	return Skill{}, apperr.New(apperr.SkillNotFound, "there is no skill named %s", name).WithParam("name", name)
}

// SetEnabled turns a skill on or off for every conversation that has made no choice of
// its own.
func (s *Service) SetEnabled(ctx context.Context, name string, on bool) (Skill, error) {
	if _, err := s.Get(ctx, name); err != nil {
		return Skill{}, err
	}
	if err := s.prefs.setGlobal(ctx, name, on); err != nil {
		return Skill{}, apperr.Wrap(err, apperr.Internal, "switch skill %s", name)
	}
	s.publish(TypeChanged, nil)
	return s.Get(ctx, name)
}

// SessionSkills are the usable skills as a conversation has them.
func (s *Service) SessionSkills(ctx context.Context, sessionID string) ([]SessionSkill, error) {
	all, err := s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	own, err := s.prefs.session(ctx, sessionID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read the conversation's skills")
	}
	out := []SessionSkill{}
	for _, sk := range all {
		if !sk.Usable() {
			continue
		}
		on, mine := own[sk.Name]
		if !mine {
			on = sk.Enabled
		}
		out = append(out, SessionSkill{Name: sk.Name, Enabled: on, Own: mine, Global: sk.Enabled})
	}
	return out, nil
}

// SetSessionSkill is a conversation's own choice for a skill: "on", "off", or "default"
// (the global switch again).
func (s *Service) SetSessionSkill(ctx context.Context, sessionID, name, state string) ([]SessionSkill, error) {
	var on *bool
	switch state {
	case "on", "off":
		v := state == "on"
		on = &v
	case "default":
	default:
		return nil, apperr.New(apperr.InvalidArgument, "a skill's state in a conversation is on, off or default, not %s", apperr.Quote(state))
	}
	if _, err := s.Get(ctx, name); err != nil {
		return nil, err
	}
	if ok, err := s.prefs.sessionExists(ctx, sessionID); err != nil || !ok {
		return nil, apperr.New(apperr.SessionNotFound, "no session %s", sessionID).WithParam("id", sessionID)
	}
	if err := s.prefs.setSession(ctx, sessionID, name, on); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "switch skill %s", name)
	}
	out, err := s.SessionSkills(ctx, sessionID)
	if err == nil {
		s.publish(TypeSessionChanged, SessionChanged{SessionID: sessionID})
	}
	return out, err
}

// offered are the skills a conversation has on, in lookup order; with no conversation,
// the globally enabled ones.
func (s *Service) offered(ctx context.Context, sessionID string) ([]Skill, error) {
	all, err := s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	own := map[string]bool{}
	if sessionID != "" {
		if own, err = s.prefs.session(ctx, sessionID); err != nil {
			return nil, fmt.Errorf("read the conversation's skills: %w", err)
		}
	}
	var out []Skill
	for _, sk := range all {
		on, mine := own[sk.Name]
		if !mine {
			on = sk.Enabled
		}
		if sk.Usable() && on {
			out = append(out, sk)
		}
	}
	return out, nil
}
