// Command orphan is a test helper for backend/mcp: it plays a Cairn that starts one stdio
// MCP server through the real Manager and is then SIGKILLed by the test, which checks
// that nothing it started survives (or that the next Cairn sweeps it).
//
// Usage: orphan [-no-cgroup] [-call TOOL=JSON] DATADIR COMMAND [ARGS...]; prints
// "READY <pgid>" once the server answered (and the call, if any, returned). -no-cgroup
// tracks the server's descendants by the marker alone; -call makes the server start what
// a call starts (a browser server's Chromium) before the kill.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/mcp/proc"
)

func main() {
	noCgroup := flag.Bool("no-cgroup", false, "track descendants by the marker alone")
	call := flag.String("call", "", "TOOL=JSON: a call to make once the server answered")
	flag.Parse()
	proc.NoCgroups = *noCgroup
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: orphan [-no-cgroup] [-call TOOL=JSON] DATADIR COMMAND [ARGS...]")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Args()[1:], *call); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	select {} // wait to be killed
}

func run(dir string, command []string, call string) error {
	db, err := mcptest.OpenDBPath(filepath.Join(dir, "cairn.db"))
	if err != nil {
		return err
	}
	ctx := context.Background()
	m, err := mcp.New(ctx, mcp.Config{DB: db, DataDir: dir, Options: mcp.Options{LoginShell: "-"}})
	if err != nil {
		return err
	}
	v, err := m.Save(ctx, mcp.Server{Name: "child", Command: command[0], Args: command[1:], Enabled: true})
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := m.RefreshTools(cctx, v.ID); err != nil {
		return err
	}
	if tool, args, ok := strings.Cut(call, "="); ok {
		res, err := m.CallTool(cctx, v.ID, tool, json.RawMessage(args), nil)
		if err != nil {
			return fmt.Errorf("call %s: %w", tool, err)
		}
		if res.IsError {
			return fmt.Errorf("call %s: %s", tool, res.Content)
		}
	}
	view, err := m.View(ctx, v.ID)
	if err != nil {
		return err
	}
	fmt.Printf("READY %d\n", view.Status.Pid)
	return nil
}
