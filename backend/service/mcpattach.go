package service

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/tools"
)

// resourceReader is what attaching needs of the MCP manager: the server's name and one
// resource read live.
type resourceReader interface {
	View(ctx context.Context, id string) (mcp.ServerView, error)
	ReadResource(ctx context.Context, id, uri string) ([]mcp.ResourceContent, error)
}

// attachmentPutter is the attachment store's intake (files.Store.Put).
type attachmentPutter interface {
	Put(ctx context.Context, name string, r io.Reader) (chat.Attachment, error)
}

// AttachMCPResource reads one of an MCP server's resources and keeps it in the attachment
// store as an upload would be kept, so it goes with the next message the way a file does:
// text as a document the model reads inline (named by the server and URI), an image as an
// image part for a vision model. name is what the user picked it by (the listing's name).
func (s *Services) AttachMCPResource(ctx context.Context, serverID, uri, name string) (chat.Attachment, error) {
	return attachResource(ctx, s.MCP, s.Files, serverID, uri, name)
}

func attachResource(ctx context.Context, rr resourceReader, store attachmentPutter, serverID, uri, name string) (chat.Attachment, error) {
	view, err := rr.View(ctx, serverID)
	if err != nil {
		return chat.Attachment{}, err
	}
	contents, err := rr.ReadResource(ctx, serverID, uri)
	if err != nil {
		return chat.Attachment{}, err
	}
	data, mime, ok := resourceBytes(contents)
	if !ok {
		return chat.Attachment{}, apperr.New(apperr.MCPResourceEmpty, "resource %s of %s has no content", uri, view.Name).
			WithParam("server", view.Name).WithParam("uri", uri)
	}
	a, err := store.Put(ctx, resourceFileName(name, uri, mime), bytes.NewReader(data))
	if err != nil {
		return chat.Attachment{}, err
	}
	a.Source = &chat.ResourceSource{ServerID: serverID, Server: view.Name, URI: uri}
	return a, nil
}

// resourceBytes is what of a read resource is attached: its text parts joined (a
// resource that has any), else its first blob decoded, with the part's media type.
func resourceBytes(contents []mcp.ResourceContent) ([]byte, string, bool) {
	var texts []string
	mime := ""
	for _, c := range contents {
		if c.Text != "" {
			texts = append(texts, c.Text)
			if mime == "" {
				mime = c.MIMEType
			}
		}
	}
	if len(texts) > 0 {
		return []byte(strings.Join(texts, "\n\n")), cmpStr(mime, "text/plain"), true
	}
	for _, c := range contents {
		if c.Blob == "" {
			continue
		}
		if b, err := base64.StdEncoding.DecodeString(c.Blob); err == nil && len(b) > 0 {
			return b, c.MIMEType, true
		}
	}
	return nil, "", false
}

// resourceFileName is the attachment's file name: the resource's name (else the last
// segment of its URI's path, or its host), with the extension of its media type when it has none of it, so
// the store reads a text resource as text and an image as the image it is.
func resourceFileName(name, uri, mime string) string {
	base := strings.TrimSpace(name)
	if base == "" {
		if u, err := url.Parse(uri); err == nil {
			if p := strings.Trim(u.Opaque+u.Path, "/"); p != "" {
				base = path.Base(p)
			} else {
				base = u.Host
			}
		}
	}
	base = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, base)
	if base == "" || base == "." || base == "_" {
		base = "resource"
	}
	ext := mimeExt(mime)
	if strings.EqualFold(path.Ext(base), ext) {
		return base
	}
	return base + ext
}

// mimeExt is the extension the attachment store reads a media type by.
func mimeExt(mime string) string {
	m := strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	switch {
	case m == "text/markdown":
		return ".md"
	case m == "text/html":
		return ".html"
	case m == "text/csv":
		return ".csv"
	case m == "application/json" || strings.HasSuffix(m, "+json"):
		return ".json"
	case m == "application/xml" || m == "text/xml" || strings.HasSuffix(m, "+xml") && m != "image/svg+xml":
		return ".xml"
	case m == "application/yaml" || m == "text/yaml":
		return ".yaml"
	case m == "application/pdf":
		return ".pdf"
	case strings.HasPrefix(m, "image/"):
		return tools.ImageExt(m)
	}
	return ".txt"
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
