package kb

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/store"
)

// isCJK, Bigrams and Words live in store, which message search shares and whose SQL
// functions index with them.
var isCJK = store.IsCJK

// Bigrams is the text of the cjk column (store.Bigrams).
func Bigrams(text string) string { return store.Bigrams(text) }

// Words is what the text column indexes (store.Words).
func Words(text string) string { return store.Words(text) }

// MaxTerms caps the terms of a keyword query: long pasted questions would otherwise
// become huge FTS5 expressions.
const MaxTerms = 16

// isStopword reports English words too common to narrow a search: an OR query over them
// scans most of the index.
func isStopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "how", "i", "in", "is", "it", "its", "of", "on", "or", "that", "the", "their", "this", "to", "was", "were", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your", "do", "does", "did", "can":
		return true
	}
	return false
}

// term is one cleaned query term: a word (searched in text) or a CJK run (in cjk).
type term struct {
	text string
	cjk  bool
}

// terms splits a query into words and CJK runs, lowercased, stopwords dropped unless
// nothing else is left, duplicates removed, at most MaxTerms.
func terms(q string) []term {
	var all []term
	var cur []rune
	curCJK := false
	flush := func() {
		if len(cur) > 0 {
			all = append(all, term{text: strings.ToLower(string(cur)), cjk: curCJK})
		}
		cur = cur[:0]
	}
	for _, r := range q {
		switch {
		case isCJK(r):
			if !curCJK {
				flush()
			}
			curCJK = true
			cur = append(cur, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if curCJK {
				flush()
			}
			curCJK = false
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	var kept []term
	seen := map[term]bool{}
	for _, t := range all {
		if (!t.cjk && isStopword(t.text)) || seen[t] {
			continue
		}
		seen[t] = true
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		for _, t := range all {
			if !seen[t] {
				seen[t] = true
				kept = append(kept, t)
			}
		}
	}
	if len(kept) > MaxTerms {
		kept = kept[:MaxTerms]
	}
	return kept
}

// expr is one term as an FTS5 expression: every term quoted, so nothing the user typed is
// read as FTS5 syntax.
func (t term) expr() string {
	if !t.cjk {
		return `text:"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
	}
	if t.single() {
		return `cjk:"` + t.text + `"*`
	}
	return `cjk:"` + t.phrase() + `"`
}

// single reports a one-character CJK term, which is a prefix query of the cjk column.
func (t term) single() bool { return t.cjk && utf8.RuneCountInString(t.text) == 1 }

// phrase is the text of the term's FTS5 phrase: the word, or a CJK run's bigrams in order
// (so a two-character word is one token and order matters).
func (t term) phrase() string {
	if !t.cjk || t.single() {
		return t.text
	}
	r := []rune(t.text)
	pairs := make([]string, 0, len(r)-1)
	for i := 0; i+1 < len(r); i++ {
		pairs = append(pairs, string(r[i:i+2]))
	}
	return strings.Join(pairs, " ")
}

// MatchExprs are the FTS5 expressions for a query: every term (AND) first, then any
// term (OR) to fill up; one expression when there is one term, none when nothing is
// searchable.
func MatchExprs(q string) []string {
	ts := terms(q)
	if len(ts) == 0 {
		return nil
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.expr()
	}
	if len(parts) == 1 {
		return parts
	}
	return []string{strings.Join(parts, " AND "), strings.Join(parts, " OR ")}
}

// Snippet is about width characters of text around the first place a query term occurs.
func Snippet(text, q string, width int) string {
	r := []rune(text)
	if len(r) <= width {
		return text
	}
	lower := []rune(strings.ToLower(text))
	at := -1
	if len(lower) == len(r) {
		s := string(lower)
		for _, t := range terms(q) {
			if i := strings.Index(s, t.text); i >= 0 {
				ri := len([]rune(s[:i]))
				if at < 0 || ri < at {
					at = ri
				}
			}
		}
	}
	start := 0
	if at > width/4 {
		start = at - width/4
	}
	end := min(len(r), start+width)
	out := string(r[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(r) {
		out += "…"
	}
	return out
}

// Terms are the cleaned terms of a query as MatchExprs searches them (lowercased words
// and CJK runs), for marking where they occur in a hit.
func Terms(q string) []string {
	ts := terms(q)
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.text
	}
	return out
}
