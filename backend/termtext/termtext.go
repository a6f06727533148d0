// Package termtext makes text that a model, a web page or an MCP server chose safe to
// print on a terminal. A terminal obeys control characters: ESC starts sequences that
// write the clipboard (OSC 52), set the title, clear the screen or move the cursor; a
// carriage return or a backspace lets later text overwrite earlier text; bidi overrides
// reorder what is shown and zero-width characters hide what is there. So everything of
// that kind is shown as a visible escape (\r, \x1b, \u202e, \xff for a byte that is not
// UTF-8) and the terminal only ever receives characters that print as themselves.
//
// A backslash stays itself: an escape and the same characters typed out look alike,
// but nothing that would act on the terminal or hide from the reader gets through.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// mode says which characters a kind of text keeps.
type mode int

const (
	// line is one line of an identifier, a command, a path or a preview: nothing but
	// printing characters, the plain space included, stays.
	line mode = iota
	// prose is a block of text (answers, tool output, logs): newlines and tabs stay, and
	// so do the joiners, variation selectors and non-ASCII spaces that scripts and emoji
	// are written with.
	prose
)

// Line returns s for one line of a terminal: control characters (line breaks and tabs
// included), format characters (bidi controls, zero-width characters), invisible fillers,
// spaces other than U+0020 and bytes that are not UTF-8 are shown as escapes.
func Line(s string) string { return escape(s, line) }

// Text returns s for a block of prose: like Line, but newlines, tabs, zero-width
// joiners, variation selectors and non-ASCII spaces stay as they are.
func Text(s string) string { return escape(s, prose) }

func escape(s string, m mode) string {
	if clean(s, m) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		u, size := unit(s[i:], m)
		b.WriteString(u)
		i += size
	}
	return b.String()
}

// clean reports whether s needs no escape at all (the common case, without allocating).
func clean(s string, m mode) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || hidden(r, m) {
			return false
		}
		i += size
	}
	return true
}

// unit returns how the first character of s is shown (itself or its escape) and how many
// bytes of s it took.
func unit(s string, m mode) (string, int) {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf(`\x%02x`, s[0]), 1
	case !hidden(r, m):
		return s[:size], size
	}
	return escapeRune(r), size
}

func escapeRune(r rune) string {
	switch {
	case r == '\r':
		return `\r`
	case r == '\n':
		return `\n`
	case r == '\t':
		return `\t`
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xFFFF:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}

// hidden reports whether r must not reach the terminal as itself in mode m.
func hidden(r rune, m mode) bool {
	if r < 0x80 {
		if r >= 0x20 && r < 0x7f {
			return false
		}
		return !(m == prose && (r == '\n' || r == '\t'))
	}
	switch {
	case unicode.IsControl(r): // C1 controls U+0080–U+009F (CSI, OSC, NEL, …)
		return true
	case unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
		return true
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
		return true // invisible fillers (U+3164, U+115F, …)
	case m == prose && (r == 0x200C || r == 0x200D):
		return false // joiners shape Indic and Persian script and emoji sequences
	case unicode.Is(unicode.Cf, r):
		return true // bidi controls, zero-width spaces, BOM, tag characters
	case m == prose:
		return false
	case unicode.Is(unicode.Variation_Selector, r):
		return true
	case unicode.Is(unicode.Zs, r):
		return true // a no-break or other space that looks like a plain one
	}
	return false
}

// cells is how many terminal columns r takes: two for wide East Asian characters, none
// for combining marks, one for the rest.
func cells(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width is how many terminal columns Line(s) takes.
func Width(s string) int {
	n := 0
	for _, r := range Line(s) {
		n += cells(r)
	}
	return n
}
