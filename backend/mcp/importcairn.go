package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Cairn's own keys of an `mcpServers` entry, which other clients ignore: "roots" (folders),
// "rootsMode" (none, workspace or folders) and "sandbox" ({"enabled", "write", "read",
// "domains"}). An entry without them (every other client's) keeps what Cairn has.
const (
	keyRoots     = "roots"
	keyRootsMode = "rootsMode"
	keySandbox   = "sandbox"
)

// importedKeys marks which of Cairn's keys an imported entry carried (set on the Server
// only while importing).
type importedKeys struct{ roots, rootsMode, sandbox bool }

// cairnKeysOf reads Cairn's own keys of an entry into srv.
func cairnKeysOf(e map[string]json.RawMessage, srv *Server) error {
	if v, ok := e[keyRoots]; ok && string(v) != "null" {
		if json.Unmarshal(v, &srv.Roots) != nil {
			return invalid("\"roots\" must be an array of folders")
		}
		srv.said.roots = true
	}
	if v, ok := e[keyRootsMode]; ok && string(v) != "null" {
		var mode string
		if json.Unmarshal(v, &mode) != nil {
			return invalid("\"rootsMode\" must be none, workspace or folders")
		}
		srv.RootsMode, srv.said.rootsMode = RootsMode(mode), true
	}
	if v, ok := e[keySandbox]; ok && string(v) != "null" {
		var b ServerSandbox
		if err := json.Unmarshal(v, &b); err != nil {
			return invalid(fmt.Sprintf("%s must be an object with enabled, write, read and domains (%v)", apperr.Quote(keySandbox), err))
		}
		srv.Sandbox, srv.said.sandbox = &b, true
	}
	return nil
}

// keepUnsaid keeps, in an imported entry that updates old, what the entry did not say.
func keepUnsaid(srv *Server, old Server) {
	if !srv.said.roots {
		srv.Roots = old.Roots
	}
	if !srv.said.rootsMode {
		srv.RootsMode = old.RootsMode
	}
	if !srv.said.sandbox {
		srv.Sandbox = old.clone().Sandbox
	}
	srv.ConnectTimeoutMs = cmp.Or(srv.ConnectTimeoutMs, old.ConnectTimeoutMs)
	srv.CallTimeoutMs = cmp.Or(srv.CallTimeoutMs, old.CallTimeoutMs)
}

// exportCairnKeys writes Cairn's own keys of s into an exported entry.
func exportCairnKeys(entry map[string]any, s Server) {
	if len(s.Roots) > 0 {
		entry[keyRoots] = append([]string{}, s.Roots...)
	}
	if s.RootsMode != RootsAuto {
		entry[keyRootsMode] = string(s.RootsMode)
	}
	if s.Sandbox != nil {
		entry[keySandbox] = s.sandbox()
	}
}
