//go:build linux || darwin || freebsd || netbsd || openbsd

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// readHidden reads one line from the terminal fd with its echo off, and gives the terminal
// back as it was before it returns. The echo is switched here, not in a reader left
// running, and the read is a deadline on a pollable copy of fd: when ctx ends (Ctrl-C;
// main catches the signal) the read stops at once and nothing switches the echo off after
// the terminal was restored.
func readHidden(ctx context.Context, fd int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	state, err := term.GetState(fd)
	if err != nil {
		return nil, fmt.Errorf("read the terminal's state: %w", err)
	}
	defer term.Restore(fd, state)
	tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, fmt.Errorf("read the terminal's settings: %w", err)
	}
	hidden := *tio
	hidden.Lflag &^= unix.ECHO
	hidden.Lflag |= unix.ICANON | unix.ISIG
	hidden.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &hidden); err != nil {
		return nil, fmt.Errorf("hide the typing: %w", err)
	}

	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	// Non-blocking is a flag of the open file that fd shares: it is put back before the
	// copy is closed.
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return nil, err
	}
	tty := os.NewFile(uintptr(dup), "terminal") // pollable: the read can have a deadline
	stop := context.AfterFunc(ctx, func() { tty.SetReadDeadline(time.Now()) })
	defer func() {
		stop()
		unix.SetNonblock(dup, false)
		tty.Close()
	}()

	var line []byte
	buf := make([]byte, 4096)
	for len(line) <= maxSecretBytes+2 {
		n, err := tty.Read(buf)
		line = append(line, buf[:n]...)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			return line[:i], nil
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, ctx.Err()
		case err != nil:
			return line, nil // end of input (Ctrl-D): what was typed
		}
	}
	return line, nil
}
