package sandbox

import (
	"os"
	"testing"

	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// TestMain lets the test binary be the sandbox helper, as the Cairn binary is: the
// sandbox re-executes it (confine.Entry) for commands and file operations.
func TestMain(m *testing.M) {
	if code, ok := confine.Entry(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
