package mcp

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestResourcesEverything lists server-everything's resources and templates and reads a
// listed text resource and a blob one a template expands to.
func TestResourcesEverything(t *testing.T) {
	h := newHarness(t, cold)
	v := h.save(everything(t, "everything"))
	ctx := ctxT(t, 60*time.Second)
	list, err := h.m.Resources(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) == 0 {
		t.Fatal("no resources listed")
	}
	var doc ResourceInfo
	for _, r := range list.Resources {
		if strings.HasPrefix(r.URI, "demo://resource/static/document/") {
			doc = r
			break
		}
	}
	if doc.URI == "" || doc.Name == "" {
		t.Fatalf("no static document among %+v", list.Resources)
	}
	tmpls := make([]string, 0, len(list.Templates))
	for _, tp := range list.Templates {
		tmpls = append(tmpls, tp.URITemplate)
	}
	for _, want := range []string{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"} {
		if !slices.Contains(tmpls, want) {
			t.Errorf("templates %v lack %s", tmpls, want)
		}
	}

	cases := []struct {
		name, uri, want string
		blob            bool
	}{
		{"listed text", doc.URI, "", false},
		{"template text", "demo://resource/dynamic/text/3", "Resource 3: This is a plaintext resource", false},
		{"template blob", "demo://resource/dynamic/blob/2", "Resource 2: This is a base64 blob", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := h.m.ReadResource(ctx, v.ID, c.uri)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].URI != c.uri {
				t.Fatalf("contents %+v", got)
			}
			text := got[0].Text
			if c.blob {
				if got[0].Text != "" || got[0].Blob == "" {
					t.Fatalf("want a blob, got %+v", got[0])
				}
				b, err := base64.StdEncoding.DecodeString(got[0].Blob)
				if err != nil {
					t.Fatal(err)
				}
				if got[0].Size != len(b) {
					t.Errorf("size %d, decoded %d", got[0].Size, len(b))
				}
				text = string(b)
			}
			if text == "" || !strings.Contains(text, c.want) {
				t.Errorf("text %q, want it to contain %q", text, c.want)
			}
		})
	}

	_, err = h.m.ReadResource(ctx, v.ID, "demo://resource/nowhere/1")
	ae := wantCode(t, err, apperr.MCPRequestFailed)
	if ae.Params["server"] != "everything" || !strings.Contains(ae.Params["what"].(string), "demo://resource/nowhere/1") {
		t.Errorf("params %v", ae.Params)
	}
}

// TestPromptsEverything lists prompts with their arguments and gets one with arguments.
func TestPromptsEverything(t *testing.T) {
	h := newHarness(t, cold)
	v := h.save(everything(t, "everything"))
	ctx := ctxT(t, 60*time.Second)
	ps, err := h.m.Prompts(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p PromptInfo) bool { return p.Name == "args-prompt" })
	if i < 0 {
		t.Fatalf("no args-prompt in %+v", ps)
	}
	args := ps[i].Arguments
	if len(args) != 2 || args[0].Name != "city" || !args[0].Required || args[1].Name != "state" || args[1].Required {
		t.Fatalf("args-prompt arguments %+v", args)
	}
	cases := []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"city": "Paris"}, "What's weather in Paris?"},
		{map[string]string{"city": "Austin", "state": "TX"}, "What's weather in Austin, TX?"},
	}
	for _, c := range cases {
		got, err := h.m.GetPrompt(ctx, v.ID, "args-prompt", c.args)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Kind != "text" || got.Messages[0].Text != c.want {
			t.Errorf("%v: messages %+v", c.args, got.Messages)
		}
	}
	res, err := h.m.GetPrompt(ctx, v.ID, "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "4"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Messages, func(m PromptMessage) bool {
		return m.Kind == "resource" && m.URI == "demo://resource/dynamic/text/4" && strings.Contains(m.Text, "Resource 4")
	}) {
		t.Errorf("resource-prompt messages %+v", res.Messages)
	}
}

// TestResourceListChanged: a session resource the server registers (gzip-file-as-resource)
// reaches windows as mcp:resources-changed, and the next listing has it.
func TestResourceListChanged(t *testing.T) {
	h := newHarness(t, cold)
	v := h.save(everything(t, "everything"))
	data := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("hello resources"))
	args, _ := json.Marshal(map[string]string{"name": "hello.gz", "data": data})
	if _, err := h.call(v.ID, "gzip-file-as-resource", string(args), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for seen := false; !seen; {
		select {
		case ev := <-h.sub.C:
			var d struct{ ID string }
			seen = ev.Type == TypeResourcesChanged && json.Unmarshal(ev.Data, &d) == nil && d.ID == v.ID
		case <-deadline:
			t.Fatal("no mcp:resources-changed event")
		}
	}
	list, err := h.m.Resources(ctxT(t, 30*time.Second), v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Resources, func(r ResourceInfo) bool { return r.URI == "demo://resource/session/hello.gz" }) {
		t.Errorf("session resource not listed: %+v", list.Resources)
	}
}
