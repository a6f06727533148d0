package mcp

import (
	"os"
	"testing"

	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// TestMain lets the test binary be the sandbox helper, as the Cairn binary is: sandboxed
// servers are started through it.
func TestMain(m *testing.M) {
	if code, ok := confine.Entry(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
