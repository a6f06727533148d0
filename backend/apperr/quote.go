package apperr

import (
	"strconv"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/termtext"
)

// quoteWhole is how many characters of a rejected value an error quotes whole;
// quoteHead is how many it quotes of a longer one.
const (
	quoteWhole = 64
	quoteHead  = 24
)

// Quote returns a rejected value as an error message or parameter shows it: quoted with
// its control and invisible characters escaped, and when it is long only its beginning
// and its length ("aaaaaaaa…" (100,000 characters)). An error never echoes a huge or
// hostile input whole into a log line, a dialog or a terminal.
func Quote(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= quoteWhole {
		return strconv.Quote(s)
	}
	head := s
	for i, k := 0, 0; i < len(s); k++ {
		if k == quoteHead {
			head = s[:i]
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strconv.Quote(head+"…") + " (" + termtext.Count(n) + " characters)"
}
