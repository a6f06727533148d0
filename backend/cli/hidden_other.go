//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package cli

import (
	"context"

	"golang.org/x/term"
)

// readHidden reads one line from the terminal fd with its echo off (the console's own
// mode on Windows). The read itself cannot be interrupted here: after Ctrl-C it ends at
// the next Enter, and readSecret then reports the interruption.
func readHidden(ctx context.Context, fd int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return term.ReadPassword(fd)
}
