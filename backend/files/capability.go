// Package files is Cairn's attachments capability: the files users attach to a message
// (kept in the data directory by content), and the `file` toolset through which a model
// reads the documents too long to put in the message.
package files

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/settings"
)

// Name is the toolset and the namespace of its tools.
const Name = "file"

// instruction is the toolset's fixed text; the files themselves are named per
// conversation (Instruction), since each has its own.
const instruction = "Documents attached to this conversation that were too long to include in the messages are read with file_read (numbered lines, a page at a time: pass offset to go on) and searched with file_search. Name the file as it is listed. Read or search before you answer about their content."

func intp(v int) *int { return &v }

// Capability declares the toolset: its label and icon, its two tools, and the two limits
// above which a document is not inlined.
func Capability() capability.Capability {
	return capability.Capability{
		Name:        Name,
		Label:       "chat:tools.namespace.file",
		Icon:        "file",
		Instruction: instruction,
		Settings: []settings.Spec{
			{Key: "files.inlineMaxLines", Type: settings.Int, Default: 400, Min: intp(0), Max: intp(100000), Section: "general"},
			{Key: "files.inlineMaxTokens", Type: settings.Int, Default: 8000, Min: intp(0), Max: intp(1000000), Section: "general"},
		},
		Open: func(ctx context.Context, env capability.Env) (capability.Opened, error) {
			st := NewStore(env.DB.DB, env.DataDir, env.Settings)
			if err := st.Sweep(ctx); err != nil {
				env.Log.Warn("files: sweep", "err", err)
			}
			return capability.Opened{Tools: Tools(st), Value: st}, nil
		},
	}
}

// Toolset is chat.Attachments.Toolset.
func (s *Store) Toolset() string { return Name }

// Instruction is chat.Attachments.Instruction: the conversation's documents the model
// reads through the tools, each with its size and line count, so it knows what there is
// and how far to page.
func (s *Store) Instruction(atts []chat.Attachment) string {
	if len(atts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Attached files to read with file_read and file_search:")
	seen := map[string]bool{}
	for _, a := range atts {
		if seen[a.ID+a.Name] {
			continue
		}
		seen[a.ID+a.Name] = true
		fmt.Fprintf(&b, "\n- %s (%s, %s, %s lines)", a.Name, a.MIME, humanSize(a.Size), thousands(a.Lines))
	}
	return b.String()
}

// humanSize is a byte count as people read it.
func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// thousands writes n with comma separators (4,120).
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
