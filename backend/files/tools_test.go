package files

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadLinesPagesLikeCatN(t *testing.T) {
	text := numbered(450)
	cases := []struct {
		name          string
		offset, limit int
		head, first   string
		last, tail    string
		lines         int
	}{
		{"default page", 0, 0, "big.txt: lines 1-200 of 450", "     1\tline 1", "   200\tline 200", "(250 more lines: call file_read with offset 201 to go on)", 200},
		{"second page", 201, 0, "big.txt: lines 201-400 of 450", "   201\tline 201", "   400\tline 400", "offset 401", 200},
		{"last page", 401, 200, "big.txt: lines 401-450 of 450", "   401\tline 401", "   450\tline 450", "(end of file)", 50},
		{"small limit", 10, 3, "big.txt: lines 10-12 of 450", "    10\tline 10", "    12\tline 12", "offset 13", 3},
		{"limit capped", 1, 99999, "big.txt: lines 1-450 of 450", "     1\tline 1", "   450\tline 450", "(end of file)", 450},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := ReadLines("big.txt", text, c.offset, c.limit)
			rows := strings.Split(out, "\n")
			if rows[0] != c.head || rows[1] != c.first || rows[len(rows)-2] != c.last || !strings.Contains(rows[len(rows)-1], c.tail) {
				t.Fatalf("got\n%s", out)
			}
			if got := len(rows) - 2; got != c.lines {
				t.Fatalf("%d lines, want %d", got, c.lines)
			}
		})
	}
	if out := ReadLines("big.txt", text, 451, 0); out != "big.txt has 450 lines; offset 451 is past the end." {
		t.Fatalf("past the end: %q", out)
	}
	if out := ReadLines("e.txt", "", 1, 0); out != "e.txt is empty (0 lines)." {
		t.Fatalf("empty: %q", out)
	}
}

func TestReadLinesCutsLongLines(t *testing.T) {
	long := strings.Repeat("é", 5000)
	out := ReadLines("wide.csv", "a\n"+long+"\nb", 1, 0)
	rows := strings.Split(out, "\n")
	want := "     2\t" + strings.Repeat("é", maxLineRunes) + " … [line cut: 5,000 characters in all]"
	if rows[2] != want || rows[0] != "wide.csv: lines 1-3 of 3" {
		t.Fatalf("got %q / %q", rows[0], rows[2][:40])
	}
}

func TestSearchLinesFormat(t *testing.T) {
	text := "alpha\nbeta\ngamma\ndelta\nbeta two\nzeta\neta\ntheta\niota\nbeta three\n"
	cases := []struct {
		name           string
		pattern        string
		context, limit int
		want           string
		count          int
	}{
		{"no context", "beta", 0, 50, "\nf.txt (10 lines): 3 matches\n     2: beta\n--\n     5: beta two\n--\n    10: beta three\n", 3},
		{"context merges neighbours", "beta", 1, 50,
			"\nf.txt (10 lines): 3 matches\n     1- alpha\n     2: beta\n     3- gamma\n     4- delta\n     5: beta two\n     6- zeta\n--\n     9- iota\n    10: beta three\n", 3},
		{"limit lists fewer, counts all", "beta", 0, 1, "\nf.txt (10 lines): 3 matches\n     2: beta\n", 3},
		{"regex", "^.?eta$", 0, 50, "\nf.txt (10 lines): 3 matches\n     2: beta\n--\n     6: zeta\n     7: eta\n", 3},
		{"none", "omega", 2, 50, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			n := SearchLines(&b, "f.txt", text, regexp.MustCompile(c.pattern), c.context, c.limit)
			if n != c.count || b.String() != c.want {
				t.Fatalf("count %d, got\n%q", n, b.String())
			}
		})
	}
}

func TestCompileLiteralAndCase(t *testing.T) {
	cases := []struct {
		in    searchInput
		line  string
		match bool
		err   bool
	}{
		{searchInput{Pattern: "a.b", Literal: true}, "axb", false, false},
		{searchInput{Pattern: "a.b", Literal: true}, "a.b", true, false},
		{searchInput{Pattern: "a.b"}, "axb", true, false},
		{searchInput{Pattern: "HELLO", IgnoreCase: true}, "hello", true, false},
		{searchInput{Pattern: "("}, "", false, true},
		{searchInput{Pattern: "(", Literal: true}, "f(x)", true, false},
		{searchInput{Pattern: ""}, "", false, true},
	}
	for _, c := range cases {
		re, err := compile(c.in)
		if (err != nil) != c.err {
			t.Fatalf("%+v: err %v", c.in, err)
		}
		if err == nil && re.MatchString(c.line) != c.match {
			t.Fatalf("%+v on %q: match %v", c.in, c.line, !c.match)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 4120: "4,120", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Fatalf("thousands(%d) = %q", n, got)
		}
	}
}
