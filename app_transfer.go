package main

import (
	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/transfer"
)

// Your data, out and back (backend/transfer): conversation exports and imports. The
// window saves a File it gets with SaveBinaryFile (desktop) or as a download.

func (a *App) transfer() *transfer.Service {
	return transfer.New(a.s.Chat, a.s.DataDir, "Cairn "+buildinfo.Get().Version)
}

// ExportSession writes one conversation as Markdown ("md", to read) or JSON ("json",
// every part, the file ImportConversations reads back).
func (a *App) ExportSession(id, format string, opt transfer.ExportOptions) (transfer.File, error) {
	return a.transfer().Export(a.ctx, id, format, opt)
}

// ExportAllSessions writes every conversation into a zip (conversations.json and one
// Markdown file each).
func (a *App) ExportAllSessions(opt transfer.ExportOptions) (transfer.File, error) {
	return a.transfer().ExportAll(a.ctx, opt)
}

// ImportConversations reads Cairn's JSON export, ChatGPT's conversations.json or a zip
// holding either, and stores every readable conversation at once; the report says what
// happened to each.
func (a *App) ImportConversations(name string, data []byte) (transfer.ImportReport, error) {
	return a.transfer().Import(a.ctx, name, data)
}
