package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
)

// String returns text with every known secret replaced by Placeholder.
func (s *Set) String(text string) string {
	return redactWith(s.snapshot(), text)
}

func redactWith(needles []string, text string) string {
	if len(needles) == 0 || len(text) < MinLen {
		return text
	}
	spans := findSpans(text, needles)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(text[last:sp.from])
		b.WriteString(Placeholder)
		last = sp.to
	}
	b.WriteString(text[last:])
	return b.String()
}

type span struct{ from, to int }

// findSpans returns the sorted, merged byte ranges of text that hold a needle, a prefix
// of one of at least MinLen bytes, or a masked echo of one.
func findSpans(text string, needles []string) []span {
	var out []span
	for _, n := range needles {
		head := n[:MinLen]
		for i := 0; i <= len(text)-MinLen; {
			j := strings.Index(text[i:], head)
			if j < 0 {
				break
			}
			at := i + j
			k := MinLen
			for at+k < len(text) && k < len(n) && text[at+k] == n[k] {
				k++
			}
			out = append(out, span{at, runeEnd(text, at+k)})
			i = at + k
		}
	}
	out = append(out, maskedEchoes(text, needles)...)
	return merge(out)
}

// runeEnd moves i forward to the start of a rune, so a replacement never leaves half of
// one behind.
func runeEnd(text string, i int) int {
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	return i
}

func merge(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	out := spans[:1]
	for _, sp := range spans[1:] {
		cur := &out[len(out)-1]
		if sp.from <= cur.to {
			cur.to = max(cur.to, sp.to)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// maskRuns finds what providers put in the middle of a key they echo: "sk-ab****wxyz",
// "sk-ab•••wxyz", "sk-ab…wxyz", "sk-ab...wxyz": runs of two or more '*', '•' or '·', of
// three or more '.', or of '…'. A byte loop, not a regexp: whole session snapshots pass
// through here.
func maskRuns(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && c != '*' && c != '.' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		minRun := 0
		switch r {
		case '*', '•', '·':
			minRun = 2
		case '.':
			minRun = 3
		case '…':
			minRun = 1
		}
		if minRun == 0 {
			i += size
			continue
		}
		j, n := i, 0
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if r2 != r {
				break
			}
			j += s2
			n++
		}
		if n >= minRun {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// Echoed prefixes and suffixes around a mask: at least this long.
const (
	minMaskedPrefix = 2
	minMaskedSuffix = 4
)

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// maskedEchoes finds a needle's prefix, a mask run and the needle's suffix in a row.
func maskedEchoes(text string, needles []string) []span {
	var out []span
	for _, m := range maskRuns(text) {
		ps := m[0]
		for ps > 0 && isKeyByte(text[ps-1]) {
			ps--
		}
		pe := m[1]
		for pe < len(text) && isKeyByte(text[pe]) {
			pe++
		}
		pre, post := text[ps:m[0]], text[m[1]:pe]
		if len(pre) < minMaskedPrefix || len(post) < minMaskedSuffix {
			continue
		}
		for _, n := range needles {
			lp, lq := longestPrefixOf(n, pre), longestSuffixOf(n, post)
			if lp >= minMaskedPrefix && lq >= minMaskedSuffix {
				out = append(out, span{m[0] - lp, m[1] + lq})
				break
			}
		}
	}
	return out
}

// longestPrefixOf is the length of the longest end of pre that begins n.
func longestPrefixOf(n, pre string) int {
	for l := min(len(pre), len(n)-1); l > 0; l-- {
		if strings.HasPrefix(n, pre[len(pre)-l:]) {
			return l
		}
	}
	return 0
}

// longestSuffixOf is the length of the longest start of post that ends n.
func longestSuffixOf(n, post string) int {
	for l := min(len(post), len(n)-1); l > 0; l-- {
		if strings.HasSuffix(n, post[:l]) {
			return l
		}
	}
	return 0
}

// Error returns a copy of e whose message and parameters are redacted; the code, key
// and action are kept (and the cause, for errors.Is).
func (s *Set) Error(e *apperr.Error) *apperr.Error {
	ns := s.snapshot()
	if e == nil || len(ns) == 0 {
		return e
	}
	c := *e
	c.Message = redactWith(ns, e.Message)
	if len(e.Params) > 0 {
		c.Params = make(map[string]any, len(e.Params))
		for k, v := range e.Params {
			c.Params[k] = walk(ns, v)
		}
	}
	return &c
}

// walk redacts the strings inside a decoded JSON value (or a parameter value).
func walk(ns []string, v any) any {
	switch x := v.(type) {
	case string:
		return redactWith(ns, x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = redactWith(ns, s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, vv := range x {
			out[i] = walk(ns, vv)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			out[redactWith(ns, k)] = walk(ns, vv)
		}
		return out
	}
	return v
}

// JSON returns a JSON document with every known secret in its strings redacted; a
// document without one is returned as it is, without decoding.
func (s *Set) JSON(raw []byte) []byte {
	ns := s.snapshot()
	if len(ns) == 0 || len(raw) < MinLen || len(findSpans(string(raw), ns)) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if out, err := json.Marshal(walk(ns, v)); err == nil {
			return out
		}
	}
	// Not JSON (the bus never publishes such): the text itself, as a JSON string.
	out, _ := json.Marshal(redactWith(ns, string(raw)))
	return out
}
