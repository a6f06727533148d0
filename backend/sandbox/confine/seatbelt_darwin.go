//go:build darwin

package confine

import (
	"context"
	"os/exec"
)

const sandboxExec = "/usr/bin/sandbox-exec"

// seatbeltProbe runs sandbox-exec for real with a trivial profile.
func seatbeltProbe(ctx context.Context) error {
	return exec.CommandContext(ctx, sandboxExec, "-p", "(version 1)(allow default)", "/usr/bin/true").Run()
}

// seatbeltWrap runs argv under the profile.
func seatbeltWrap(profile string, argv []string) []string {
	return append([]string{sandboxExec, "-p", profile, "--"}, argv...)
}
