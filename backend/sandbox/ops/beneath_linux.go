package ops

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// beneath holds a descriptor of the workspace for openat2: RESOLVE_BENEATH makes the
// kernel refuse any way out (`..`, absolute symlinks, magic links such as /proc/self/root)
// in the same call that opens the file, so a symlink swapped in between a check and the
// open cannot lead out.
type beneath struct{ fd int }

var errNoBeneath = errors.New("no beneath-open on this kernel")

func openBeneathDir(dir string) beneath {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return beneath{fd: -1}
	}
	return beneath{fd: fd}
}

func (b beneath) close() {
	if b.fd >= 0 {
		_ = unix.Close(b.fd)
	}
}

func (b beneath) open(rel string, flag int, perm os.FileMode, noLinks bool) (*os.File, error) {
	if b.fd < 0 {
		return nil, errNoBeneath
	}
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	if noLinks {
		how.Resolve |= unix.RESOLVE_NO_SYMLINKS
	}
	if flag&os.O_CREATE == 0 {
		how.Mode = 0
	}
	for {
		fd, err := unix.Openat2(b.fd, rel, &how)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err == unix.ENOSYS:
			return nil, errNoBeneath
		case err != nil:
			return nil, &os.PathError{Op: "openat2", Path: rel, Err: err}
		}
		return os.NewFile(uintptr(fd), rel), nil
	}
}
