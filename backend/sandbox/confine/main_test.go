package confine

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the sandbox helper, as the Cairn binary is.
func TestMain(m *testing.M) {
	if code, ok := Entry(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
