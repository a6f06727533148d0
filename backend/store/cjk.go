package store

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"unicode"

	"modernc.org/sqlite"
)

// IsCJK reports the scripts that are written without spaces between words: FTS5's
// unicode61 tokenizer would make a whole run of them one token, so they are indexed and
// searched as overlapping bigrams instead (knowledge bases and message search alike).
func IsCJK(r rune) bool {
	switch { // the common blocks first: unicode.Is walks four range tables
	case r < 0x1100: // below Hangul Jamo, the first of these scripts' blocks
		return false
	case r >= 0x4E00 && r <= 0x9FEF, r >= 0xAC00 && r <= 0xD7A3, r >= 0x3041 && r <= 0x3096, r >= 0x30A1 && r <= 0x30FA:
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r)
}

// Bigrams is the text of an FTS5 cjk column: every overlapping pair of characters of
// each Han, Kana and Hangul run, and the run's last character alone (so a one-character
// query finds it at the end of a run too).
func Bigrams(text string) string {
	var b strings.Builder
	run := make([]rune, 0, 64)
	flush := func() {
		for i := 0; i+1 < len(run); i++ {
			b.WriteRune(run[i])
			b.WriteRune(run[i+1])
			b.WriteByte(' ')
		}
		if len(run) > 0 {
			b.WriteRune(run[len(run)-1])
			b.WriteByte(' ')
		}
		run = run[:0]
	}
	for _, r := range text {
		if IsCJK(r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
	return strings.TrimSpace(b.String())
}

// Words is what an FTS5 text column indexes: the text with every Han, Kana and Hangul
// character replaced by a space. unicode61 counts those as letters, so "基于goroutine和"
// would be one token and neither "goroutine" nor the Chinese could be found in it; the
// CJK is indexed as bigrams in the cjk column, which is where queries look for it.
func Words(text string) string {
	if strings.IndexFunc(text, IsCJK) < 0 {
		return text
	}
	return strings.Map(func(r rune) rune {
		if IsCJK(r) {
			return ' '
		}
		return r
	}, text)
}

// textArg is a scalar function's argument as text (NULL as "").
func textArg(v driver.Value) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// cjk_words(text) and cjk_bigrams(text) are Words and Bigrams in SQL, so triggers keep
// an FTS index of both columns in step with the rows it indexes (migration 0018).
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("cjk_words", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		return Words(textArg(args[0])), nil
	})
	sqlite.MustRegisterDeterministicScalarFunction("cjk_bigrams", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		return Bigrams(textArg(args[0])), nil
	})
}
