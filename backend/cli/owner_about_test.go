package cli

import (
	"testing"
	"time"
)

// backendOwner is what GetBackendOwner answers (main.BackendOwner, as JSON).
type backendOwner struct {
	Kind    string `json:"kind"`
	PID     int    `json:"pid"`
	Since   int64  `json:"since"`
	Windows int    `json:"windows"`
	Clients int    `json:"clients"`
}

// TestAboutNamesTheOwner: a tab of `cairn serve` asks who owns the data directory
// (Settings → About) and hears serve's PID, when it started, and the tabs open now.
func TestAboutNamesTheOwner(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	before := time.Now().Add(-time.Second).UnixMilli()
	serve := startServeChild(t, bin, dir)
	serve.openTab(t)
	serve.openTab(t)
	var o backendOwner
	serve.call(t, "GetBackendOwner", &o)
	if o.Kind != "serve" || o.PID != serve.cmd.Process.Pid || o.Windows != 2 || o.Since < before || o.Since > time.Now().UnixMilli() {
		t.Fatalf("GetBackendOwner = %+v, want serve PID %d since after %d with 2 windows", o, serve.cmd.Process.Pid, before)
	}
}
