package kb

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The in-memory keyword index splits text as kb_fts's tokenizer (FTS5 unicode61 with
// remove_diacritics 2) does, so that it scores what FTS5 would match: a token is a run of
// letters, numbers and private-use characters; a combining diacritic inside a token is
// dropped and does not end it; letters are lowercased and Latin letters lose their
// diacritics. TestTokensMatchFTS5 compares both on English, accented, Chinese, Japanese,
// Korean and other scripts.

// latinBase maps the precomposed Latin letters (U+00C0-U+024F, U+1E00-U+1EFF) to the
// letter they decompose to when every other part of the decomposition is a combining
// diacritic; 0 where there is none (ø, æ, ß stay as they are, as in unicode61).
type latinBase struct {
	lo  [0x250 - 0xC0]rune
	ext [0x100]rune
}

func newLatinBase() *latinBase {
	t := &latinBase{}
	fill := func(from rune, out []rune) {
		for i := range out {
			d := []rune(norm.NFD.String(string(from + rune(i))))
			if len(d) < 2 || d[0] >= 0x80 {
				continue
			}
			ok := true
			for _, m := range d[1:] {
				ok = ok && m >= 0x300 && m <= 0x36F
			}
			if ok {
				out[i] = unicode.ToLower(d[0])
			}
		}
	}
	fill(0xC0, t.lo[:])
	fill(0x1E00, t.ext[:])
	return t
}

func (t *latinBase) strip(r rune) rune {
	var b rune
	switch {
	case r >= 0xC0 && r < 0x250:
		b = t.lo[r-0xC0]
	case r >= 0x1E00 && r < 0x1F00:
		b = t.ext[r-0x1E00]
	}
	if b != 0 {
		return b
	}
	return r
}

// isDiacritic is unicode61's set of combining diacritics that continue a token
// (sqlite3Fts5UnicodeIsdiacritic).
func isDiacritic(r rune) bool {
	const mask0, mask1 = 0x08029FDF, 0x000361F8
	if r < 768 || r > 817 {
		return false
	}
	if r < 768+32 {
		return mask0&(1<<(r-768)) != 0
	}
	return mask1&(1<<(r-768-32)) != 0
}

func isTokenRune(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// fold is unicode61's folding: lowercase, Latin diacritics removed; above the BMP only
// Deseret has case there.
func (t *latinBase) fold(r rune) rune {
	switch {
	case r < 0x80:
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	case r < 0x10000:
		return t.strip(unicode.ToLower(r))
	case r >= 66560 && r < 66600:
		return r + 40
	}
	return r
}

// tokenizer splits text into unicode61's tokens, reusing one buffer.
type tokenizer struct {
	base *latinBase
	buf  []byte
}

// each calls fn with every token of s, folded; the slice is reused, so fn copies what it
// keeps. It returns how many tokens there were.
func (t *tokenizer) each(s string, fn func(tok []byte)) int {
	n := 0
	in := false
	buf := t.buf[:0]
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		i += w
		switch {
		case isTokenRune(r):
			in = true
			buf = utf8.AppendRune(buf, t.base.fold(r))
		case in && isDiacritic(r):
		default:
			if in {
				fn(buf)
				n++
				buf, in = buf[:0], false
			}
		}
	}
	if in {
		fn(buf)
		n++
	}
	t.buf = buf
	return n
}
