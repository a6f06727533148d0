//go:build !unix && !windows

package owner

import "os"

// lockFile cannot lock on this platform: every process is its own backend, as before.
func lockFile(*os.File, bool) error { return nil }
