//go:build !unix

package ops

import "io/fs"

const nonBlock = 0

// links is 1 where the file system does not say.
func links(fs.FileInfo) uint64 { return 1 }
