//go:build !linux && !darwin

package owner

import (
	"net"
	"os"
)

// peerUID has no peer-credential call here: the socket file's permissions (0600 in a
// 0700 directory; the user's own ACL on Windows) are the check.
func peerUID(*net.UnixConn) (int, bool) { return os.Getuid(), true }
