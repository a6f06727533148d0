package docparse

import "unicode"

// isCJK reports the scripts written without spaces between words, where one character is
// roughly one token and a chunk's size must be counted in characters.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// Tokens estimates the tokens a model tokenizer makes of s without loading one: each CJK
// character counts one, each other word (a run of letters and digits) one per six
// characters begun, and each other visible symbol one. On English and Chinese prose it
// comes out 10–20% above o200k (so chunks err on the small side), on code about a third
// above; a test keeps it there.
func Tokens(s string) int {
	n, word := 0, 0
	for _, r := range s {
		switch {
		case isCJK(r):
			n += wordTokens(word) + 1
			word = 0
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			word++
		default:
			n += wordTokens(word)
			word = 0
			if !unicode.IsSpace(r) {
				n++
			}
		}
	}
	return n + wordTokens(word)
}

func wordTokens(runes int) int { return (runes + 5) / 6 }
