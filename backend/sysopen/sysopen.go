// Package sysopen opens a file on disk with the desktop's default application: xdg-open
// on Linux and the BSDs, open on macOS, the shell's file handler on Windows. A program or
// script is not opened (that would run it): its folder is, with the file in it.
package sysopen

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// runnable reports the extensions the desktop may run rather than show.
func runnable(ext string) bool {
	switch ext {
	case ".exe", ".bat", ".cmd", ".com", ".msi", ".ps1", ".vbs", ".js", ".jse", ".wsf", ".scr", ".lnk", ".jar",
		".sh", ".desktop", ".app", ".command", ".appimage", ".run", ".py", ".pl", ".rb":
		return true
	}
	return false
}

// Target is what Open hands the opener for path: the file itself, or its folder when the
// file is a program, a script or executable.
func Target(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return abs, nil
	}
	if runnable(strings.ToLower(filepath.Ext(abs))) || (runtime.GOOS != "windows" && st.Mode()&0o111 != 0) {
		return filepath.Dir(abs), nil
	}
	return abs, nil
}

// Open starts the opener on Target(path) and returns once it started; the opener is
// reaped in the background.
func Open(_ context.Context, path string) error {
	target, err := Target(path)
	if err != nil {
		return err
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", "--", target)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", target)
	default:
		cmd = exec.Command("xdg-open", target)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the opener: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
