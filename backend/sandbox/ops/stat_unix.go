//go:build unix

package ops

import (
	"io/fs"
	"syscall"
)

// nonBlock keeps opening a FIFO from hanging; a regular file ignores it.
const nonBlock = syscall.O_NONBLOCK

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
