package kb

import (
	"context"
	"strings"
)

// MaxViewChunks bounds what FileView reads of one file: a viewer shows a document, not a
// book's worth of chunks at once.
const MaxViewChunks = 2000

// Passage is one chunk of a file as the viewer shows it: its text without the part it
// repeats of the chunk before (the chunking overlap), so the passages read as the
// document.
type Passage struct {
	ChunkID   int64  `json:"chunkId"`
	Index     int    `json:"index"`
	Heading   string `json:"heading,omitempty"`
	Text      string `json:"text"`
	PageStart int    `json:"pageStart,omitempty"`
	PageEnd   int    `json:"pageEnd,omitempty"`
	LineStart int    `json:"lineStart,omitempty"`
	LineEnd   int    `json:"lineEnd,omitempty"`
}

// FileView is a file's text for the viewer a search hit opens: the file, its passages in
// order, whether more chunks were left out, and whether the file is on disk (added by
// path), so the window can offer to open it.
type FileView struct {
	File      File      `json:"file"`
	Passages  []Passage `json:"passages"`
	Truncated bool      `json:"truncated,omitempty"`
	OnDisk    bool      `json:"onDisk,omitempty"`
}

// FileView reads a file's chunks for the viewer.
func (s *Service) FileView(ctx context.Context, fileID string) (FileView, error) {
	f, err := s.st.File(ctx, fileID)
	if err != nil {
		return FileView{}, err
	}
	cs, err := s.st.FileChunks(ctx, fileID, 0, MaxViewChunks)
	if err != nil {
		return FileView{}, err
	}
	v := FileView{File: f, Passages: make([]Passage, 0, len(cs)), OnDisk: f.Source != ""}
	if len(cs) > MaxViewChunks {
		cs, v.Truncated = cs[:MaxViewChunks], true
	}
	prev := ""
	for _, c := range cs {
		text := strings.TrimLeft(c.Text[overlap(prev, c.Text):], "\n")
		v.Passages = append(v.Passages, Passage{ChunkID: c.ID, Index: c.Index, Heading: c.Heading, Text: text,
			PageStart: c.PageStart, PageEnd: c.PageEnd, LineStart: c.LineStart, LineEnd: c.LineEnd})
		prev = c.Text
	}
	return v, nil
}

// overlap is the length of the start of cur that repeats the end of prev: docparse starts
// a chunk with whole sentences from the end of the one before, then "\n\n" and the new
// text; the repeat starts a sentence of prev. 0 when there is none (the first chunk, a new heading, an overlap of 0).
func overlap(prev, cur string) int {
	prev = strings.TrimRight(prev, " \n")
	best := 0
	for k := 0; k < len(cur) && k <= 8<<10; {
		i := strings.Index(cur[k:], "\n\n")
		end := len(cur)
		if i >= 0 {
			end = k + i
		}
		if end > 0 && strings.HasSuffix(prev, cur[:end]) && (end == len(prev) || strings.ContainsRune(" \n", rune(prev[len(prev)-end-1]))) {
			best = end
		}
		if i < 0 {
			break
		}
		k = end + 2
	}
	return best
}
