package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Wrap returns Line(s) in pieces of at most width columns (an escape is never split), so
// a long command or path is shown whole instead of cut. With limit > 0 it stops once
// limit columns are shown and says how many characters of s it left out in more; with
// limit 0 everything is shown.
func Wrap(s string, width, limit int) (lines []string, more int) {
	if width < 8 {
		width = 8
	}
	var cur strings.Builder
	used, shown := 0, 0
	for i := 0; i < len(s); {
		u, size := unit(s[i:], line)
		w := 0
		for _, r := range u {
			w += cells(r)
		}
		if limit > 0 && shown+w > limit {
			more = utf8.RuneCountInString(s[i:])
			break
		}
		if used+w > width && used > 0 {
			lines = append(lines, cur.String())
			cur.Reset()
			used = 0
		}
		cur.WriteString(u)
		used += w
		shown += w
		i += size
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines, more
}

// Summary returns s as one short line for a preview (a [tool] line, a result): runs of
// spaces, tabs and newlines become one space, the rest is escaped as by Line, and what
// is over max columns is left out with a note of how many characters that was.
func Summary(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }), " ")
	lines, more := Wrap(s, max+1, max)
	out := strings.Join(lines, "")
	if more > 0 {
		out += fmt.Sprintf("… (%s more characters)", Count(more))
	}
	return out
}

// Count writes n with thousands separators (100,000), as the notes of this package and
// error messages quote lengths.
func Count(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Stream escapes prose that arrives in pieces, such as a streamed answer: a character
// whose bytes are split across two pieces is held back until it is whole, instead of
// being shown as two invalid bytes. The zero value is ready to use.
type Stream struct {
	rest []byte
}

// Text returns what of piece can be shown now, escaped as by Text.
func (s *Stream) Text(piece string) string {
	b := append(s.rest, piece...)
	s.rest = nil
	if cut := incompleteTail(b); cut < len(b) {
		s.rest = append([]byte(nil), b[cut:]...)
		b = b[:cut]
	}
	return Text(string(b))
}

// Flush returns what was held back (bytes that never became a character, escaped).
func (s *Stream) Flush() string {
	b := s.rest
	s.rest = nil
	return Text(string(b))
}

// incompleteTail returns where a UTF-8 sequence that the end of b cuts short begins, or
// len(b) when b ends on a whole character.
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= 0xC0 && !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// JSON returns a JSON document (as encoding/json writes it) with the characters Line
// escapes written as \u escapes instead: the document means the same, but a C1 control,
// a bidi override or a zero-width character inside a string cannot act on the terminal
// it is printed to. Bytes that are not UTF-8 become U+FFFD, as encoding/json does.
func JSON(doc []byte) []byte {
	var b strings.Builder
	b.Grow(len(doc))
	for i := 0; i < len(doc); {
		r, size := utf8.DecodeRune(doc[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && hidden(r, line)):
			writeJSONEscape(&b, r)
		default:
			b.Write(doc[i : i+size])
		}
		i += size
	}
	return []byte(b.String())
}

func writeJSONEscape(b *strings.Builder, r rune) {
	if r <= 0xFFFF {
		fmt.Fprintf(b, `\u%04x`, r)
		return
	}
	r -= 0x10000
	fmt.Fprintf(b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
}
