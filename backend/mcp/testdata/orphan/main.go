// Command orphan is a test helper for backend/mcp: it plays a Cairn that starts one stdio
// MCP server through the real Manager and is then SIGKILLed by the test, which checks
// that nothing it started survives (or that the next Cairn sweeps it).
//
// Usage: orphan [-no-cgroup] DATADIR COMMAND [ARGS...]; prints "READY <pgid>" once the
// server answered. -no-cgroup tracks the server's descendants by the marker alone.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/mcp/proc"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-no-cgroup" {
		proc.NoCgroups = true
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: orphan [-no-cgroup] DATADIR COMMAND [ARGS...]")
		os.Exit(2)
	}
	dir := os.Args[1]
	db, err := mcptest.OpenDBPath(filepath.Join(dir, "cairn.db"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	m, err := mcp.New(ctx, mcp.Config{DB: db, DataDir: dir, Options: mcp.Options{LoginShell: "-"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	v, err := m.Save(ctx, mcp.Server{Name: "child", Command: os.Args[2], Args: os.Args[3:], Enabled: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := m.RefreshTools(cctx, v.ID); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	view, _ := m.View(ctx, v.ID)
	fmt.Printf("READY %d\n", view.Status.Pid)
	select {} // wait to be killed
}
