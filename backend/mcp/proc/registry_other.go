//go:build !linux

package proc

// startTime is unknown outside Linux; the sweep then trusts nothing and kills nothing.
func startTime(pid int) (uint64, bool) { return 0, false }

// killGroupMembers does nothing where process identity cannot be checked: a child of a
// killed Cairn still sees EOF on stdin, which ends well-behaved MCP servers.
func killGroupMembers(pgid int, leaderStart uint64) int { return 0 }

// ownerAlive cannot be told apart from a reused pid here, so every owner counts as alive
// and nothing is swept.
func ownerAlive(pid int, start uint64) bool { return true }

// liveMembers is unknown here.
func liveMembers(pgid int) ([]int, bool) { return nil, false }
