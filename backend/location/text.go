package location

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// The caps on what a provider's answer may put in front of the model and the window.
const (
	maxName        = 200
	maxAddress     = 300
	maxInstruction = 500
)

// clean makes a provider's string safe to show: no control or format characters (which
// hide or reorder text), whitespace folded to single spaces, at most max runes.
func clean(s string, max int) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= max {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// stripHTML turns Google's html_instructions into text: tags dropped (a block tag is a
// space), entities decoded, then cleaned.
func stripHTML(s string, max int) string {
	return clean(html.UnescapeString(tagRE.ReplaceAllString(s, " ")), max)
}

// flexStr is a string field of an Amap answer, which writes an empty value as [] and
// numbers sometimes as numbers: every shape decodes, none fails the answer.
type flexStr string

func (f *flexStr) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || b[0] == '[' || b[0] == '{' || string(b) == "null":
		*f = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexStr(s)
	default:
		*f = flexStr(string(b))
	}
	return nil
}

// num reads a count of metres or seconds; anything unreadable or negative is 0.
func (f flexStr) num() int {
	v, err := strconv.ParseFloat(strings.TrimSpace(string(f)), 64)
	if err != nil || v < 0 || v > 1e9 {
		return 0
	}
	return int(v + 0.5)
}

// flexObj is an object field of an Amap answer, which writes an empty one as [].
type flexObj[T any] struct{ V T }

func (f *flexObj[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		var zero T
		f.V = zero
		return nil
	}
	return json.Unmarshal(b, &f.V)
}
