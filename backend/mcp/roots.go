package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RootsMode says which MCP roots a server is offered. A server that is offered roots
// uses them in place of its own idea of where to work: server-filesystem replaces the
// folders of its arguments with them, Playwright writes its files into the first.
type RootsMode string

const (
	// RootsAuto (the stored ""): RootsWorkspace, unless the server has no configured
	// folders and its arguments already name a folder (argsNameFolder), then RootsNone.
	RootsAuto RootsMode = ""
	// RootsNone: no roots capability at all; the server keeps its own folders.
	RootsNone RootsMode = "none"
	// RootsWorkspace: the configured folders and the workspace of the task session that
	// calls the server (changing with it).
	RootsWorkspace RootsMode = "workspace"
	// RootsFolders: the configured folders only.
	RootsFolders RootsMode = "folders"
)

func (s *Server) normalizeRootsMode() error {
	switch s.RootsMode {
	case RootsAuto, RootsNone, RootsWorkspace:
	case RootsFolders:
		if len(s.Roots) == 0 {
			return invalid("the roots mode \"folders\" needs at least one folder")
		}
	default:
		return invalid(fmt.Sprintf("unknown roots mode %s (use none, workspace or folders, or leave it empty to decide from the arguments)", apperr.Quote(string(s.RootsMode))))
	}
	return nil
}

// rootsMode is the mode in force: the chosen one, or for RootsAuto what the config says.
func (s Server) rootsMode() RootsMode {
	if s.RootsMode != RootsAuto {
		return s.RootsMode
	}
	if s.Transport == TransportBuiltin {
		return RootsNone
	}
	if len(s.Roots) == 0 && argsNameFolder(s.Args, s.Cwd) {
		return RootsNone
	}
	return RootsWorkspace
}

// argsNameFolder says whether an argument names an existing folder: written as an
// absolute path, as ~ or ~/…, or relative as ., .., ./… or ../… (from the server's
// working directory), on its own or as the value of --flag=value. Such a server was told
// where to work on its command line (server-filesystem's allowed folders), and roots
// would replace that. A bare word is never taken for a folder, even when one of that
// name exists: it is usually a subcommand or a package name.
func argsNameFolder(args []string, cwd string) bool {
	home, _ := os.UserHomeDir()
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			_, v, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			a = v
		}
		if p := folderArg(a, cwd, home); p != "" {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return true
			}
		}
	}
	return false
}

// folderArg is the path an argument names when it is written as a path ("" otherwise).
func folderArg(a, cwd, home string) string {
	sep := string(filepath.Separator)
	switch {
	case a == "":
		return ""
	case filepath.IsAbs(a):
		return a
	case a == "~" || strings.HasPrefix(a, "~/") || strings.HasPrefix(a, "~"+sep):
		if home == "" {
			return ""
		}
		return filepath.Join(home, a[1:])
	case a == "." || a == ".." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") ||
		strings.HasPrefix(a, "."+sep) || strings.HasPrefix(a, ".."+sep):
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		return filepath.Join(cwd, a)
	}
	return ""
}

// offersRoots says whether Cairn advertises the roots capability to the server.
func (s Server) offersRoots() bool { return s.rootsMode() != RootsNone }

// offerWorkspace makes the calling task session's workspace one of the server's roots,
// beside the configured ones, before the call (roots mode workspace), so a server that
// writes files (Playwright's snapshots) writes there. A call from a session with another
// workspace replaces it; go-sdk announces each change with
// notifications/roots/list_changed. A chat session's call leaves the roots as they are.
func (m *Manager) offerWorkspace(ctx context.Context, s *server, c *conn) {
	if m.space == nil || c.client == nil || s.config().rootsMode() != RootsWorkspace {
		return
	}
	call, ok := tools.CallFromContext(ctx)
	if !ok || call.SessionID == "" {
		return
	}
	dir, err := m.space(ctx, call.SessionID)
	if err != nil || dir == "" {
		return
	}
	m.setWorkspaceRoot(s.config(), c, call.SessionID, dir)
}

// setWorkspaceRoot offers dir (the workspace of session; "" offers none) in place of the
// workspace the connection offered before. A sandboxed server is offered only a
// workspace inside its sandbox's folders: any other it could not reach.
func (m *Manager) setWorkspaceRoot(cfg Server, c *conn, session, dir string) {
	if dir != "" && cfg.sandboxed() {
		box := cfg.sandbox()
		if workspaceFor(append(slices.Clone(box.Write), box.Read...), dir) == "" {
			dir = ""
		}
	}
	c.rootsMu.Lock()
	defer c.rootsMu.Unlock()
	c.wsSession = session
	if c.workspace == dir {
		return
	}
	if c.workspace != "" && !slices.Contains(cfg.Roots, c.workspace) {
		c.client.RemoveRoots(fileURI(c.workspace))
	}
	if dir != "" {
		c.client.AddRoots(&mcp.Root{URI: fileURI(dir), Name: "workspace"})
	}
	c.workspace = dir
}

// WorkspaceChanged follows a task session's new workspace (dir; "" when it has none now):
// every server whose roots offer that session's workspace is offered the new one at once,
// and go-sdk tells it with notifications/roots/list_changed.
func (m *Manager) WorkspaceChanged(sessionID, dir string) {
	if sessionID == "" {
		return
	}
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			dir = ""
		}
	}
	m.mu.Lock()
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		c, cfg := s.conn, s.cfg.clone()
		s.mu.Unlock()
		if c == nil || c.client == nil || cfg.rootsMode() != RootsWorkspace {
			continue
		}
		c.rootsMu.Lock()
		mine := c.wsSession == sessionID
		c.rootsMu.Unlock()
		if mine {
			m.setWorkspaceRoot(cfg, c, sessionID, dir)
		}
	}
}
