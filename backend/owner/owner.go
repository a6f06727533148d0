// Package owner makes one process the backend of a data directory. The first long-running
// process (the desktop app or `cairn serve`) takes an exclusive lock on a file in the
// directory and answers on a control socket there: the facade's method list and event
// stream, its status, and a request to serve a browser. A CLI command that finds an owner
// works through that socket (Client); with none it takes the lock shared for its run, so
// commands can run side by side while an owner waits for them to finish.
package owner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

// The files an owner keeps in the data directory.
const (
	lockName   = "cairn.lock"
	infoName   = "owner.json"
	socketName = "cairn.sock"
)

// Kinds of owner.
const (
	KindServe   = "serve"
	KindDesktop = "desktop"
)

// maxSocketPath is below the smallest sun_path (104 bytes on macOS and the BSDs).
const maxSocketPath = 100

// pollEvery is how often a waiting process looks at the lock again.
const pollEvery = 100 * time.Millisecond

var errBusy = errors.New("locked by another process")

// Info says who owns a data directory.
type Info struct {
	PID     int       `json:"pid"`
	Start   int64     `json:"start,omitempty"` // the process's start time (pidcheck)
	Kind    string    `json:"kind"`            // KindServe or KindDesktop
	Since   time.Time `json:"since"`
	Windows int       `json:"windows"` // open windows: the desktop's and browser tabs (Status only)
	Clients int       `json:"clients"` // event streams of CLI commands (Status only)
}

// Describe is how a message names the owner: "cairn serve (PID 42)".
func (i Info) Describe() string {
	name := "the Cairn desktop app"
	if i.Kind == KindServe {
		name = "cairn serve"
	}
	return fmt.Sprintf("%s (PID %d)", name, i.PID)
}

// SocketPath is where the owner of dir listens. A data directory whose path is too long
// for a Unix socket gets one in the temporary directory, named by the directory's hash.
func SocketPath(dir string) string {
	p := filepath.Join(dir, socketName)
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(os.TempDir(), "cairn-"+hex.EncodeToString(sum[:8])+".sock")
}

// Lock is a held lock on a data directory: exclusive for its owner, shared for a command.
type Lock struct {
	f *os.File
}

// Close releases the lock.
func (l *Lock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// tryLock opens the lock file of dir (creating dir) and locks it without waiting; errBusy
// when another process holds it in a conflicting way.
func tryLock(dir string, exclusive bool) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "create data dir").WithParam("path", dir)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "open the lock file").WithParam("path", dir)
	}
	if err := lockFile(f, exclusive); err != nil {
		f.Close()
		if errors.Is(err, errBusy) {
			return nil, errBusy
		}
		return nil, apperr.Wrap(err, apperr.DataDirFailed, "lock the data dir").WithParam("path", dir)
	}
	return &Lock{f: f}, nil
}

// ReadInfo reads what the last owner of dir wrote about itself; ok is false without one.
// It says nothing about whether that owner still runs (Status does).
func ReadInfo(dir string) (Info, bool) {
	b, err := os.ReadFile(filepath.Join(dir, infoName))
	if err != nil {
		return Info{}, false
	}
	var in Info
	if json.Unmarshal(b, &in) != nil || in.PID == 0 {
		return Info{}, false
	}
	return in, true
}

func writeInfo(dir string, in Info) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, infoName+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, infoName))
}

// busy is the error of a directory another process keeps: its owner, or commands.
func busy(dir string, owner *Info) *apperr.Error {
	who := "another cairn command"
	if owner != nil {
		who = owner.Describe()
	}
	e := apperr.New(apperr.DataDirBusy, "the data directory %s is in use by %s", dir, who).
		WithParam("path", dir).WithParam("owner", who)
	if owner != nil {
		e = e.WithParam("pid", owner.PID).WithParam("kind", owner.Kind)
	}
	return e
}

// selfInfo describes this process as the owner of kind.
func selfInfo(kind string) Info {
	me := pidcheck.Self()
	return Info{PID: me.PID, Start: me.Start, Kind: kind, Since: time.Now().UTC().Truncate(time.Second)}
}
