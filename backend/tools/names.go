package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxWireNameLen is the longest wire name any supported provider accepts (the strictest
// one allows 64; one less leaves room for providers that count a terminator).
const MaxWireNameLen = 63

// mcpHashLen is how many hex digits of sha256(serverId+toolName) end an MCP wire name.
const mcpHashLen = 20

// mcpReadableBudget is what is left for camel(server)+camel(tool) in an MCP wire name:
// 63 - len("mcp__") - len("__") - len("_") - 20.
const mcpReadableBudget = MaxWireNameLen - 5 - 2 - 1 - mcpHashLen

// MCPNamespacePrefix starts the namespace of every MCP server's tools: "mcp:<serverId>".
const MCPNamespacePrefix = "mcp:"

// NamespaceMeta is the namespace of the meta tools. A built-in capability's namespace is
// its name (backend/capability).
const NamespaceMeta = "meta"

// MCPNamespace is the namespace of one MCP server's tools, keyed by its stable id so a
// renamed server keeps its tools.
func MCPNamespace(serverID string) string { return MCPNamespacePrefix + serverID }

// IsMCPNamespace reports whether a namespace holds an MCP server's tools.
func IsMCPNamespace(ns string) bool { return strings.HasPrefix(ns, MCPNamespacePrefix) }

// BuiltinName is the wire name of a built-in tool: "<namespace>_<verb>".
func BuiltinName(namespace, verb string) string { return namespace + "_" + verb }

// MetaName is the wire name of a meta tool: "tool_<verb>".
func MetaName(verb string) string { return "tool_" + verb }

// MCPName is the wire name of an MCP tool:
// mcp__<camel(serverName)>__<camel(toolName)>_<first 20 hex of sha256(serverID+toolName)>.
// The hash carries the identity, so servers with equal names never collide and the name
// is stable across restarts; the readable part is only truncated, never the hash, to
// keep the whole within MaxWireNameLen characters of [a-zA-Z0-9_-].
func MCPName(serverID, serverName, toolName string) string {
	sum := sha256.Sum256([]byte(serverID + toolName))
	hash := hex.EncodeToString(sum[:])[:mcpHashLen]
	s := camel(serverName, "server")
	t := camel(toolName, "tool")
	if len(s)+len(t) > mcpReadableBudget {
		// Give the server at most what the tool leaves, but never less than 12 chars
		// (or its whole name when shorter); the tool gets the rest.
		sb := min(len(s), max(mcpReadableBudget-len(t), 12))
		s = s[:sb]
		t = t[:min(len(t), mcpReadableBudget-sb)]
	}
	return "mcp__" + s + "__" + t + "_" + hash
}

// camel turns "my-server name" into "myServerName", keeping only ASCII letters and
// digits (everything else separates words); empty results become fallback.
func camel(s, fallback string) string {
	var b strings.Builder
	b.Grow(len(s))
	upperNext := false
	for _, r := range s {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			switch {
			case b.Len() == 0:
				r = unicode.ToLower(r)
			case upperNext:
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upperNext = false
			continue
		}
		upperNext = b.Len() > 0
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// ValidWireName reports whether name is acceptable to every supported provider:
// 1..63 characters of [a-zA-Z0-9_-].
func ValidWireName(name string) bool {
	if name == "" || len(name) > MaxWireNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
