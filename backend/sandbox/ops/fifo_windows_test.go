package ops

import "testing"

// The sandbox refuses to run on Windows, and Windows has no FIFOs to refuse.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	t.Fatalf("no FIFO can be made on Windows (%s)", path)
}
