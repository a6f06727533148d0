package websearch

import (
	"net/url"
	"sort"
	"strings"
)

// rrfK is reciprocal rank fusion's constant: a result's score is the sum over the lists
// that have it of 1/(rrfK + rank).
const rrfK = 60

// Merge fuses ranked lists into one: results with the same normalized URL are one result
// (the best-ranked copy's text, every provider that found it), ordered by fused rank, at
// most limit of them.
func Merge(lists [][]Result, limit int) []Result {
	type entry struct {
		r     Result
		score float64
		first int // order of first sight, to break ties stably
		who   []string
	}
	byURL := map[string]*entry{}
	var order []*entry
	for _, list := range lists {
		for rank, r := range list {
			k := NormalizeURL(r.URL)
			e, ok := byURL[k]
			if !ok {
				e = &entry{r: r, first: len(order)}
				byURL[k] = e
				order = append(order, e)
			}
			e.score += 1 / float64(rrfK+rank+1)
			if !containsStr(e.who, r.Provider) {
				e.who = append(e.who, r.Provider)
			}
			if e.r.Snippet == "" {
				e.r.Snippet = r.Snippet
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].score != order[j].score {
			return order[i].score > order[j].score
		}
		return order[i].first < order[j].first
	})
	out := []Result{}
	for _, e := range order {
		if limit > 0 && len(out) == limit {
			break
		}
		e.r.Provider = strings.Join(e.who, "+")
		out = append(out, e.r)
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// NormalizeURL is the form two results are compared in: scheme and host lower-cased, the
// host's www. dropped, default ports, fragments, tracking parameters (utm_*, gclid,
// fbclid) and a trailing slash removed, the remaining parameters sorted.
func NormalizeURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return strings.TrimSpace(raw)
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if p := u.Port(); p != "" && !(p == "80" && u.Scheme == "http") && !(p == "443" && u.Scheme == "https") {
		host += ":" + p
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "utm_") || lk == "gclid" || lk == "fbclid" {
			q.Del(k)
		}
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	out := host + path
	if enc := q.Encode(); enc != "" {
		out += "?" + enc
	}
	return out
}
