package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// TestSessionsSearch: `cairn sessions search` finds a message by a word of its text and
// by a two-character Chinese word, marks the match, prints JSON with --json, and says so
// when nothing matches; both through the owner (a running serve) and without one.
func TestSessionsSearch(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	bin := buildCairn(t)
	for _, withOwner := range []bool{false, true} {
		name := "alone"
		if withOwner {
			name = "through serve"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fake := llmtest.Start(t)
			fake.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "灯塔在海边。"} })
			if r := runBin(t, bin, dir, "", "provider", "add", "fake", "--base-url", fake.URL, "--model", "m"); r.code != 0 {
				t.Fatalf("provider add: %+v", r)
			}
			r := runBin(t, bin, dir, "", "chat", "--provider", "fake", "where is the lighthouse")
			m := sessionLine.FindStringSubmatch(r.stderr)
			if r.code != 0 || m == nil {
				t.Fatalf("chat: %+v", r)
			}
			if withOwner {
				startServeChild(t, bin, dir)
			}
			text := runBin(t, bin, dir, "", "sessions", "search", "lighthouse")
			if text.code != 0 || !strings.Contains(text.stdout, m[1]) || !strings.Contains(text.stdout, "where is the [lighthouse]") {
				t.Fatalf("search: %+v", text)
			}
			js := runBin(t, bin, dir, "", "sessions", "search", "灯塔", "--json")
			var res struct {
				Hits []struct {
					SessionID string `json:"sessionId"`
					Role      string `json:"role"`
					Snippet   []struct {
						Text string `json:"text"`
						Mark bool   `json:"mark"`
					} `json:"snippet"`
				} `json:"hits"`
			}
			if js.code != 0 || json.Unmarshal([]byte(js.stdout), &res) != nil || len(res.Hits) != 1 || res.Hits[0].SessionID != m[1] ||
				res.Hits[0].Role != "assistant" || len(res.Hits[0].Snippet) < 1 || res.Hits[0].Snippet[0].Text != "灯塔" || !res.Hits[0].Snippet[0].Mark {
				t.Fatalf("search --json: %+v", js)
			}
			none := runBin(t, bin, dir, "", "sessions", "search", "submarine")
			if none.code != 0 || none.stdout != "" || !strings.Contains(none.stderr, "no messages match") {
				t.Fatalf("no match: %+v", none)
			}
			if r := runBin(t, bin, dir, "", "sessions", "search"); r.code == 0 {
				t.Fatalf("no query accepted: %+v", r)
			}
		})
	}
}
