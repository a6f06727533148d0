package oauth

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
)

// SystemBrowser opens an http(s) URL with the desktop's default browser: xdg-open on
// Linux and the BSDs, open on macOS, the URL protocol handler on Windows. It returns once
// the opener started; the opener is reaped in the background.
func SystemBrowser(_ context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("not an http(s) URL: %q", raw)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", raw)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", raw)
	default:
		cmd = exec.Command("xdg-open", raw)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the browser: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
