package confine

import "os"

// RunTests is a test binary's main for a package whose tests reach the sandbox: the
// binary is then the sandbox helper too, as the Cairn binary is (Entry), since the
// sandbox re-executes it for its probe, commands and file operations. Without it a
// re-execution would run the tests again and the probe would time out.
func RunTests(m interface{ Run() int }) {
	if code, ok := Entry(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
