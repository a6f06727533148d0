package tools

import (
	"cmp"
	"slices"
	"strings"
)

// maxSuggestions is how many close names an unknown-tool error lists.
const maxSuggestions = 5

// closeNames returns the candidates nearest to name by edit distance (case-insensitive),
// plus those that start with it (a model that dropped an MCP name's hash), best first.
func closeNames(name string, candidates []string) []string {
	q := strings.ToLower(name)
	limit := max(2, len(q)/3)
	type scored struct {
		name string
		d    int
	}
	var hits []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		lc := strings.ToLower(c)
		d := levenshtein(q, lc)
		if len(q) >= 4 && strings.HasPrefix(lc, q) {
			d = min(d, 1)
		}
		if d <= limit {
			hits = append(hits, scored{c, d})
		}
	}
	slices.SortFunc(hits, func(a, b scored) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	out := make([]string, 0, min(len(hits), maxSuggestions))
	for i := 0; i < len(hits) && i < maxSuggestions; i++ {
		out = append(out, hits[i].name)
	}
	return out
}

// levenshtein is the edit distance between two strings, by bytes (wire names are ASCII).
func levenshtein(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
