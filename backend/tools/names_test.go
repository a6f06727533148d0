package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/quick"
)

func hashOf(id, tool string) string {
	s := sha256.Sum256([]byte(id + tool))
	return hex.EncodeToString(s[:])[:20]
}

func TestMCPName(t *testing.T) {
	long := strings.Repeat("verylongname", 8)
	tests := []struct {
		name, id, server, tool string
		wantPrefix             string
	}{
		{"simple", "srv-1", "gmail", "sendMessage", "mcp__gmail__sendMessage_"},
		{"snake and kebab become camel", "srv-1", "my-mail server", "send_message-now", "mcp__myMailServer__sendMessageNow_"},
		{"capitalised first word is lowered", "x", "GitHub", "CreateIssue", "mcp__gitHub__createIssue_"},
		{"a leading acronym is lowered whole", "x", "Notion", "API-get-self", "mcp__notion__apiGetSelf_"},
		{"an acronym further on keeps its capitals", "x", "fetch", "getURLInfo", "mcp__fetch__getURLInfo_"},
		{"an acronym before a word", "x", "MCPServer", "HTTPRequest", "mcp__mcpServer__httpRequest_"},
		{"an acronym after a separator", "x", "my-API", "list_S3_buckets", "mcp__myAPI__listS3Buckets_"},
		{"all capitals", "x", "AWS", "LIST_ALL", "mcp__aws__listALL_"},
		{"digits stay in their word", "x", "v2beta", "get2FACode", "mcp__v2beta__get2FACode_"},
		{"non-ASCII server falls back", "x", "邮件服务", "发送", "mcp__server__tool_"},
		{"punctuation only", "x", "!!!", "list", "mcp__server__list_"},
		{"both long: server keeps 12, tool the rest", "x", long, long, "mcp__verylongname__verylongnameverylongnam_"},
		{"long server, short tool", "x", long, "get", "mcp__verylongnameverylongnameverylong__get_"},
		{"short server, long tool", "x", "fs", long, "mcp__fs__verylongnameverylongnameverylongn_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MCPName(tt.id, tt.server, tt.tool)
			want := tt.wantPrefix + hashOf(tt.id, tt.tool)
			if got != want {
				t.Fatalf("MCPName = %q\n          want %q", got, want)
			}
			if !ValidWireName(got) {
				t.Fatalf("%q is not a valid wire name (len %d)", got, len(got))
			}
		})
	}
}

// TestMCPNameProperties: for any input the name is valid for the strictest provider,
// ends with the identity hash, and is the same every time (stable across restarts).
func TestMCPNameProperties(t *testing.T) {
	prop := func(id, server, tool string) bool {
		n := MCPName(id, server, tool)
		return ValidWireName(n) && len(n) <= MaxWireNameLen &&
			strings.HasPrefix(n, "mcp__") && strings.HasSuffix(n, "_"+hashOf(id, tool)) &&
			n == MCPName(id, server, tool)
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 5000}); err != nil {
		t.Fatal(err)
	}
}

// TestMCPNameNoCollisions: servers with equal names but different ids, and many tools per
// server, never share a wire name.
func TestMCPNameNoCollisions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]string{}
	tools := []string{"search", "send_message", "list", "get", strings.Repeat("x", 80)}
	for i := 0; i < 2000; i++ {
		id := fmt.Sprintf("%08x-%04x", r.Uint32(), r.Uint32()&0xffff)
		for _, tool := range tools {
			for _, server := range []string{"github", "GitHub", "git hub"} { // all camel to gitHub/github
				n := MCPName(id, server, tool)
				key := id + "\x00" + tool
				if prev, dup := seen[n]; dup && prev != key {
					t.Fatalf("collision: %q for %q and %q", n, prev, key)
				}
				seen[n] = key
			}
		}
	}
	if a, b := MCPName("id-a", "same", "tool"), MCPName("id-b", "same", "tool"); a == b {
		t.Fatalf("equal server names with different ids collide: %s", a)
	}
}

func TestBuiltinAndMetaNames(t *testing.T) {
	if got := BuiltinName("web", "search"); got != "web_search" {
		t.Fatalf("BuiltinName = %q", got)
	}
	if got := MetaName("search"); got != searchName {
		t.Fatalf("MetaName = %q, meta tool is %q", got, searchName)
	}
	for _, n := range []string{searchName, inspectName, invokeName, readResultName} {
		if !strings.HasPrefix(n, "tool_") || !isMetaName(n) {
			t.Fatalf("%s is not a reserved tool_<verb> name", n)
		}
	}
	if MCPNamespace("abc") != "mcp:abc" || !IsMCPNamespace("mcp:abc") || IsMCPNamespace("web") {
		t.Fatal("MCP namespace helpers disagree")
	}
}

func TestValidWireName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"web_search", true},
		{"a-b_C9", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"", false},
		{"has space", false},
		{"dot.name", false},
		{"ünï", false},
	}
	for _, tt := range tests {
		if got := ValidWireName(tt.name); got != tt.ok {
			t.Errorf("ValidWireName(%q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
