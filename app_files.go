package main

import (
	"encoding/base64"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/files"
)

// Attachments facade: files a window attaches to a message (picker, drop, paste).

// UploadAttachment sends one part of a file (base64; a request body is bounded, so a
// window sends files in parts: an empty uploadID starts one, last finishes it). The last
// part answers with the stored attachment, or the file's own error (too large, damaged,
// encrypted, a type Cairn cannot read).
func (a *App) UploadAttachment(name, uploadID, dataBase64 string, last bool) (files.Upload, error) {
	data, err := base64.StdEncoding.DecodeString(dataBase64)
	if err != nil {
		return files.Upload{}, apperr.Wrap(err, apperr.InvalidArgument, "upload %s", name).WithParam("name", name)
	}
	return a.s.Files.PutPart(a.ctx, name, uploadID, data, last)
}

// GetAttachmentPreview is what an attachment chip's dialog shows: the image whole, or
// the document's text.
func (a *App) GetAttachmentPreview(id string) (files.Preview, error) {
	return a.s.Files.Preview(a.ctx, id)
}
