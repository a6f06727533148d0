//go:build !linux

package ops

import (
	"errors"
	"os"
)

// beneath is Linux's openat2; elsewhere os.Root does the beneath-open.
type beneath struct{}

var errNoBeneath = errors.New("no beneath-open on this system")

func openBeneathDir(string) beneath { return beneath{} }

func (beneath) close() {}

func (beneath) open(string, int, os.FileMode, bool) (*os.File, error) { return nil, errNoBeneath }
