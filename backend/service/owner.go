package service

import (
	"sync/atomic"

	"github.com/cairn-app/cairn/backend/owner"
)

// ownerStatus says who owns the data directory, with its windows counted now: set by the
// owner's control socket (cli.Host), so a window's Settings → About can show it.
type ownerStatus = atomic.Pointer[func() owner.Info]

// SetOwnerStatus is how the owner of the data directory describes itself.
func (s *Services) SetOwnerStatus(status func() owner.Info) { s.owner.Store(&status) }

// OwnerStatus is the owner of the data directory now; ok is false when no owner runs on
// these services (a command that opened the directory for its own run).
func (s *Services) OwnerStatus() (owner.Info, bool) {
	f := s.owner.Load()
	if f == nil {
		return owner.Info{}, false
	}
	return (*f)(), true
}
