package service

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestMCPImageReachesTheModel runs server-everything's get-tiny-image through the whole
// backend to a local OpenAI-wire server: a vision model's next request carries the image
// as an image_url part of a user message after the tool message, byte for byte the file
// Cairn kept; a model without vision gets the file's path and size in the tool message
// and no image part.
func TestMCPImageReachesTheModel(t *testing.T) {
	var runs atomic.Int32
	s, view := withEverything(t, &runs)
	ctx := context.Background()
	infos, err := s.MCP.RefreshTools(ctx, view.ID)
	if err != nil {
		t.Fatal(err)
	}
	tool := ""
	for _, ti := range infos {
		if ti.Name == "get-tiny-image" {
			tool = ti.WireName
		}
	}
	if tool == "" {
		t.Fatalf("no get-tiny-image among %d tools", len(infos))
	}
	srv := llmtest.Start(t)
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "seeing", SupportsTools: true, Vision: true, ContextWindow: 128000}, {ID: "blind", SupportsTools: true, ContextWindow: 128000}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"seeing", "blind"} {
		t.Run(model, func(t *testing.T) {
			sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: model, Toolsets: []string{"mcp"}})
			if err != nil {
				t.Fatal(err)
			}
			before := len(srv.Requests())
			srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "img1", Name: tool, Arguments: `{}`}}}, llmtest.Reply{Text: "A logo."})
			if _, err := s.Chat.SendMessage(ctx, sess.ID, "show me the image"); err != nil {
				t.Fatal(err)
			}
			snap := waitIdle(t, s, sess.ID)
			ref := savedImage(t, snap)
			reqs := srv.Requests()
			if len(reqs) != before+2 {
				t.Fatalf("%d requests", len(reqs)-before)
			}
			checkImageRequest(t, reqs[before+1].Body, ref, model == "seeing")
		})
	}
}

// savedImage is the one image of the conversation's tool result, checked against its file.
func savedImage(t *testing.T, snap chat.Snapshot) tools.ImageRef {
	t.Helper()
	for _, m := range snap.Messages {
		for _, p := range m.Parts {
			if p.Type == chat.PartToolResult && p.Tool != nil && len(p.Tool.Images) == 1 {
				ref := p.Tool.Images[0]
				b, err := os.ReadFile(ref.Path)
				sum := sha256.Sum256(b)
				if err != nil || hex.EncodeToString(sum[:]) != ref.SHA256 || ref.MIMEType != "image/png" || ref.Width == 0 {
					t.Fatalf("saved image %+v: %v", ref, err)
				}
				return ref
			}
		}
	}
	t.Fatalf("no tool result with an image in %+v", snap.Messages)
	return tools.ImageRef{}
}

func checkImageRequest(t *testing.T, body llmtest.ChatRequest, ref tools.ImageRef, vision bool) {
	t.Helper()
	var urls []string
	toolAt := -1
	for i, m := range body.Messages {
		if m.Role == "tool" {
			toolAt = i
			if !strings.Contains(m.Content, ref.Path) || !strings.Contains(m.Content, "bytes") {
				t.Fatalf("tool message does not name the file: %q", m.Content)
			}
		}
		if u := m.ImageURLs(); len(u) > 0 {
			if m.Role != "user" || i != toolAt+1 {
				t.Fatalf("image part in message %d (%s), the tool message is %d", i, m.Role, toolAt)
			}
			urls = append(urls, u...)
		}
	}
	if !vision {
		if len(urls) != 0 {
			t.Fatalf("a model without vision got %d image parts", len(urls))
		}
		return
	}
	if len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/png;base64,") {
		t.Fatalf("image parts %v", urls)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(urls[0], "data:image/png;base64,"))
	sum := sha256.Sum256(data)
	if err != nil || hex.EncodeToString(sum[:]) != ref.SHA256 {
		t.Fatalf("the image sent is not the file kept (%v)", err)
	}
}
