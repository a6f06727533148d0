package tasks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

// record is a task as its file keeps it: the task, the process that runs it, where the
// model's reads have got to and whether the model was told of its end.
type record struct {
	Task
	Owner    pidcheck.Owner `json:"owner"`
	Read     int64          `json:"read"`
	Reported bool           `json:"reported"`
}

// taskFile is the content of <dir>/<session>/<task>.json.
type taskFile struct {
	Record record `json:"record"`
	Output output `json:"output"`
}

var sessionRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// validSession reports whether a session id can name its folder.
func validSession(id string) bool { return sessionRE.MatchString(id) }

func (s *Service) sessionDir(sessionID string) string { return filepath.Join(s.cfg.Dir, sessionID) }

// saveLocked writes t's file (a temporary file renamed over it, so a crash leaves the
// previous one whole).
func (s *Service) saveLocked(t *task) error {
	b, err := json.Marshal(taskFile{Record: t.rec, Output: t.out})
	if err != nil {
		return err
	}
	dir := s.sessionDir(t.rec.SessionID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".task-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, t.rec.ID+".json"))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	t.unsaved = false
	return nil
}

// load reads every task file; a task left running by a process that is gone (or by an
// earlier service of this one) is interrupted, its end the time its file was last written.
// A file that cannot be read is skipped with a warning.
func (s *Service) load(ctx context.Context) error {
	sessions, err := os.ReadDir(s.cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "read the background tasks")
	}
	for _, d := range sessions {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !d.IsDir() || !validSession(d.Name()) {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(s.cfg.Dir, d.Name(), "task_*.json"))
		for _, f := range files {
			if err := s.loadFile(f, d.Name()); err != nil {
				s.log.Warn("tasks: skip an unreadable task", "file", f, "err", err)
			}
		}
	}
	return nil
}

func (s *Service) loadFile(path, sessionID string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tf taskFile
	if err := json.Unmarshal(b, &tf); err != nil {
		return err
	}
	if tf.Record.SessionID != sessionID || strings.TrimSuffix(filepath.Base(path), ".json") != tf.Record.ID {
		return fmt.Errorf("the file names another task")
	}
	t := &task{rec: tf.Record, out: tf.Output}
	t.out.headMax, t.out.tailMax = s.cfg.HeadBytes, s.cfg.TailBytes
	o := t.rec.Owner
	if t.rec.State == StateRunning && (o.PID <= 0 || o.PID == s.self.PID || !o.Alive()) {
		t.rec.State = StateInterrupted
		t.rec.EndedAt = time.Now().UnixMilli()
		if fi, err := os.Stat(path); err == nil {
			t.rec.EndedAt = fi.ModTime().UnixMilli()
		}
		if err := s.saveLocked(t); err != nil {
			return err
		}
		s.log.Info("tasks: marked a task interrupted", "task", t.rec.ID)
	}
	s.tasks[t.rec.ID] = t
	s.lastStart = max(s.lastStart, t.rec.StartedAt)
	return nil
}

// followSessions forgets the tasks of every session deleted (chat's sessions:removed).
func (s *Service) followSessions() {
	defer s.wg.Done()
	for {
		select {
		case <-s.base.Done():
			return
		case ev, ok := <-s.sub.C:
			if !ok {
				return
			}
			if ev.Topic != events.TopicSessions || ev.Type != "sessions:removed" {
				continue
			}
			var ref struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(ev.Data, &ref) == nil && ref.SessionID != "" {
				if err := s.Forget(s.base, ref.SessionID); err != nil {
					s.log.Warn("tasks: forget a deleted session", "session", ref.SessionID, "err", err)
				}
			}
		}
	}
}

// Forget stops the session's running tasks and removes all of its tasks and their files
// (the session was deleted).
func (s *Service) Forget(ctx context.Context, sessionID string) error {
	if !validSession(sessionID) {
		return nil
	}
	s.mu.Lock()
	var running, gone []*task
	for _, t := range s.tasks {
		if t.rec.SessionID != sessionID {
			continue
		}
		gone = append(gone, t)
		if t.rec.State == StateRunning && t.done != nil {
			t.ending = StateStopped
			t.cancel()
			running = append(running, t)
		}
	}
	s.mu.Unlock()
	s.await(ctx, running)
	s.mu.Lock()
	for _, t := range gone {
		delete(s.tasks, t.rec.ID)
	}
	err := os.RemoveAll(s.sessionDir(sessionID))
	s.mu.Unlock()
	if s.cfg.Bus != nil {
		for _, t := range gone {
			s.cfg.Bus.Publish(Topic(sessionID), EventRemoved, t.rec.Task)
		}
	}
	return err
}

// Unreported are the session's tasks that ended without the model being told (by a
// task_output read that saw the end, or by MarkReported), oldest end first: chat tells
// the model of them at the start of its next round.
func (s *Service) Unreported(sessionID string) []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Task
	for _, t := range s.tasks {
		if t.rec.SessionID == sessionID && t.rec.State != StateRunning && !t.rec.Reported {
			out = append(out, s.viewLocked(t))
		}
	}
	slices.SortFunc(out, func(a, b Task) int { return cmp.Or(cmp.Compare(a.EndedAt, b.EndedAt), cmp.Compare(a.ID, b.ID)) })
	return out
}

// MarkReported records that the model was told of these tasks' ends.
func (s *Service) MarkReported(sessionID string, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		t, err := s.lookupLocked(sessionID, id)
		if err != nil || t.rec.Reported {
			continue
		}
		t.rec.Reported = true
		if err := s.saveLocked(t); err != nil {
			s.log.Warn("tasks: keep a task's report", "task", id, "err", err)
		}
	}
}

func sortNewestFirst(ts []Task) {
	slices.SortFunc(ts, func(a, b Task) int { return cmp.Or(cmp.Compare(b.StartedAt, a.StartedAt), cmp.Compare(b.ID, a.ID)) })
}
