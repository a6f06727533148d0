package tasks

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// output is what a task wrote, capped: the first headMax bytes and the last tailMax, with
// offsets into the whole stream, so a reader that remembers where it stopped gets only
// what is new and learns how much fell out of the middle while it was away.
type output struct {
	headMax, tailMax int
	Head             []byte `json:"head,omitempty"`
	Tail             []byte `json:"tail,omitempty"` // the last bytes once the head is full
	Total            int64  `json:"total"`          // bytes written
}

func (o *output) write(p []byte) {
	o.Total += int64(len(p))
	rest := p
	if room := o.headMax - len(o.Head); room > 0 {
		n := min(room, len(rest))
		o.Head = append(o.Head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) == 0 {
		return
	}
	o.Tail = append(o.Tail, rest...)
	if over := len(o.Tail) - o.tailMax; over > 0 {
		o.Tail = append(o.Tail[:0], o.Tail[over:]...)
	}
}

// tailStart is the offset of the tail's first byte in the whole stream.
func (o *output) tailStart() int64 { return o.Total - int64(len(o.Tail)) }

// dropped is how many bytes lie between the head and the tail, kept nowhere.
func (o *output) dropped() int64 { return o.tailStart() - int64(len(o.Head)) }

// Page is a piece of a task's output from an offset on.
type Page struct {
	// Text is the output from the offset, with a line saying how many bytes were
	// dropped where the kept head and tail meet.
	Text string `json:"text"`
	// Dropped is how many bytes of the range were no longer kept.
	Dropped int64 `json:"dropped,omitempty"`
	// Next is the offset after Text (the next read starts there); More says output was
	// left for the next read (the page was full).
	Next int64 `json:"next"`
	More bool  `json:"more,omitempty"`
}

// from is the kept output from offset off on, at most limit bytes of it (0: all). A
// running task's page stops before an incomplete UTF-8 sequence at its end, which the
// next read then starts with; a finished task's ends as it ended.
func (o *output) from(off int64, limit int, final bool) Page {
	off = max(0, min(off, o.Total))
	begin := off
	var b []byte
	var dropped int64
	head := int64(len(o.Head))
	ts := o.tailStart()
	marker := -1
	if off < head {
		b = append(b, o.Head[off:]...)
		off = head
	}
	if off < ts {
		dropped = ts - off
		marker = len(b)
		off = ts
	}
	if off < o.Total {
		b = append(b, o.Tail[off-ts:]...)
	}
	more := false
	if limit > 0 && len(b) > limit {
		b, more = b[:limit], true
		final = false
	}
	if !final {
		b = b[:completeUTF8(b)]
	}
	next := begin + int64(len(b)) + dropped
	if marker > len(b) {
		// The page ended before the gap: the gap is still ahead of the reader.
		next -= dropped
		dropped, marker = 0, -1
	}
	return Page{Text: render(b, marker, dropped), Dropped: dropped, Next: next, More: more}
}

// render is b as text, with the dropped line at marker (-1: none).
func render(b []byte, marker int, dropped int64) string {
	if marker < 0 || dropped <= 0 {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b[:marker]), "\uFFFD") +
		fmt.Sprintf("\n… [%d bytes of output dropped] …\n", dropped) +
		strings.ToValidUTF8(string(b[marker:]), "\uFFFD")
}

// completeUTF8 is the length of b without an incomplete UTF-8 sequence at its end.
func completeUTF8(b []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return len(b) // ASCII: nothing is cut
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return len(b)
			}
			return len(b) - i
		}
	}
	return len(b)
}
