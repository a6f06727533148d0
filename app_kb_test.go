package main

import (
	"context"
	"encoding/base64"
	"slices"
	"testing"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/service"
)

// TestSessionKBsTurnTheToolsetOn: attaching a knowledge base to a conversation turns its
// kb toolset on, so the model is offered kb_search; detaching all leaves the toolset as
// the user set it.
func TestSessionKBsTurnTheToolsetOn(t *testing.T) {
	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := NewApp(ctx, s, false)
	k, err := a.CreateKB(kb.CreateInput{Name: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.AddKBUpload(k.ID, "dir/tomatoes.md", base64.StdEncoding.EncodeToString([]byte("Tomatoes need sun.")))
	if err != nil || f.Name != "tomatoes.md" {
		t.Fatalf("upload: %+v %v", f, err)
	}
	if _, err := a.AddKBUpload(k.ID, "x.md", "not base64!"); err == nil {
		t.Fatal("bad base64 was accepted")
	}
	sess, err := a.CreateSession(chat.SessionInput{Kind: chat.KindChat, Toolsets: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := a.SetSessionKBs(sess.ID, []string{k.ID})
	if err != nil || !slices.Equal(ids, []string{k.ID}) {
		t.Fatalf("attach: %v %v", ids, err)
	}
	snap, _ := a.GetSession(sess.ID)
	if !slices.Equal(snap.Session.Toolsets, []string{"web", "kb"}) && !slices.Equal(snap.Session.Toolsets, []string{"kb", "web"}) {
		t.Fatalf("toolsets after attaching: %v", snap.Session.Toolsets)
	}
	if got, _ := a.GetSessionKBs(sess.ID); !slices.Equal(got, []string{k.ID}) {
		t.Fatalf("GetSessionKBs = %v", got)
	}
	if ids, err := a.SetSessionKBs(sess.ID, nil); err != nil || len(ids) != 0 {
		t.Fatalf("detach: %v %v", ids, err)
	}
	if _, err := a.SetSessionKBs("no-such-session", []string{k.ID}); err == nil {
		t.Fatal("an unknown session was attached")
	}
}
