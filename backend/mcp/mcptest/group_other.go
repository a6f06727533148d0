//go:build !unix

package mcptest

import "os/exec"

func setpgid(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
