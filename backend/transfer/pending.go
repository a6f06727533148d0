package transfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// A window cannot restore the directory its own backend runs on, so it stages the restore:
// StageRestore checks the whole backup now (as Restore does) and leaves it unpacked beside
// the data directory; the next owner to start applies it before it opens anything
// (ApplyPending, called by cli.ClaimOwner). Keys are not restored this way (the window
// has no way to give the passphrase at start-up); the keys there are stay.

// PendingPath is where a staged restore of dataDir waits.
func PendingPath(dataDir string) string {
	clean := filepath.Clean(dataDir)
	return filepath.Join(filepath.Dir(clean), "."+filepath.Base(clean)+".restore-pending")
}

// StageRestore checks a backup and stages it for the next start; a failure stages
// nothing (and leaves an earlier staged restore as it was).
func StageRestore(ctx context.Context, name string, data []byte, dataDir string) (Manifest, error) {
	parent := filepath.Dir(filepath.Clean(dataDir))
	staged, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dataDir))+".restore-")
	if err != nil {
		return Manifest{}, restoreFailed(dataDir, err)
	}
	defer os.RemoveAll(staged)
	m, _, err := unpack(ctx, name, data, staged, "", true)
	if err != nil {
		return Manifest{}, err
	}
	pending := PendingPath(dataDir)
	if err := os.RemoveAll(pending); err != nil {
		return Manifest{}, restoreFailed(dataDir, err)
	}
	if err := os.Rename(staged, pending); err != nil {
		return Manifest{}, restoreFailed(dataDir, err)
	}
	return m, nil
}

// CancelPendingRestore drops a staged restore.
func CancelPendingRestore(dataDir string) error {
	if err := os.RemoveAll(PendingPath(dataDir)); err != nil {
		return restoreFailed(dataDir, err)
	}
	return nil
}

// HasPendingRestore reports whether a restore waits for the next start.
func HasPendingRestore(dataDir string) bool {
	st, err := os.Stat(PendingPath(dataDir))
	return err == nil && st.IsDir()
}

// ApplyPending swaps a staged restore in; the caller holds the directory (as its owner)
// and claims it again afterwards, since the lock it holds moved away with the old one.
func ApplyPending(dataDir string) (bool, error) {
	pending := PendingPath(dataDir)
	if _, err := os.Stat(pending); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err := swap(dataDir, pending); err != nil {
		return false, restoreFailed(dataDir, err)
	}
	return true, nil
}
