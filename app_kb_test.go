package main

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
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

// TestKBFileViewOpenAndChooseFolder: a hit's file reads back for the viewer; only a file
// added from disk opens, and only where the desktop gave an opener; the folder dialog is
// the desktop's (no_folder_dialog in serve).
func TestKBFileViewOpenAndChooseFolder(t *testing.T) {
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
	pasted, err := a.AddKBText(k.ID, "pasted", "Tomatoes need sun.")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "disk.md")
	if err := os.WriteFile(path, []byte("Robins sing at dawn."), 0o600); err != nil {
		t.Fatal(err)
	}
	added, err := a.AddKBPaths(k.ID, []string{path}, kb.AddOptions{})
	if err != nil || len(added) != 1 {
		t.Fatalf("add path: %v %v", added, err)
	}
	svc, _ := a.kbs()
	if err := svc.WaitIdle(ctx, nil); err != nil {
		t.Fatal(err)
	}
	v, err := a.GetKBFileView(added[0].ID)
	if err != nil || !v.OnDisk || len(v.Passages) != 1 || v.Passages[0].Text != "Robins sing at dawn." {
		t.Fatalf("view: %+v %v", v, err)
	}
	if err := a.OpenKBFile(added[0].ID); apperr.From(err).Code != apperr.KBOpenFailed {
		t.Fatalf("open in serve: %v", err)
	}
	if _, err := a.ChooseFolder("Choose"); apperr.From(err).Code != apperr.NoFolderDialog {
		t.Fatalf("folder dialog in serve: %v", err)
	}
	var opened []string
	a.openFile = func(p string) error { opened = append(opened, p); return nil }
	a.chooseFolder = func(title string) (string, error) { return "/home/me/" + title, nil }
	if err := a.OpenKBFile(added[0].ID); err != nil || !slices.Equal(opened, []string{path}) {
		t.Fatalf("open: %v, opened %v", err, opened)
	}
	if err := a.OpenKBFile(pasted.ID); apperr.From(err).Code != apperr.KBOpenFailed || len(opened) != 1 {
		t.Fatalf("open pasted text: %v, opened %v", err, opened)
	}
	if got, err := a.ChooseFolder("papers"); err != nil || got != "/home/me/papers" {
		t.Fatalf("folder dialog: %q %v", got, err)
	}
}
