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
// digits (everything else separates words); empty results become fallback. Words also
// end where the case says so (getURLInfo is get, URL, Info), so an acronym stays
// readable: a leading one is lowered whole (API-get-self → apiGetSelf, HTTPRequest →
// httpRequest, not aPIGetSelf), one further on keeps its capitals (getURLInfo). The name
// carries no identity (MCPName's hash does, and Prefs key MCP tools by server and tool),
// so a change of this spelling loses no stored choice.
func camel(s, fallback string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, w := range words(s) {
		if i == 0 {
			b.WriteString(strings.ToLower(w))
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// words splits s into its ASCII letter-and-digit words: at every other character, where
// a lower-case letter or digit meets an upper-case one (getURL → get, URL), and before
// the last capital of a run that a lower-case letter follows (URLInfo → URL, Info).
func words(s string) []string {
	var out []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || !(unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))) {
			flush()
			continue
		}
		if len(cur) > 0 && isUpper(c) {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(s) && isLower(s[i+1])
			if !isUpper(prev) || nextLower {
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return out
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

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
