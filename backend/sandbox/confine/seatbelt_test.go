package confine

import (
	"strings"
	"testing"
)

// TestSeatbeltProfile checks the macOS profile's text: deny by default, the workspace
// and private folders writable, secrets and protected paths denied after the rules that
// would allow them, the network off, and a hostile path kept one quoted string.
func TestSeatbeltProfile(t *testing.T) {
	ws := "/Users/me/proj \"x\")\n(allow default)"
	l := layout{pol: Policy{Workspace: ws}, exe: "/Applications/Cairn.app/Contents/MacOS/cairn",
		tmp: "/private/tmp/cairn-sbx-1/tmp", home: "/private/tmp/cairn-sbx-1/home",
		readOnly: []string{"/Users/me/ref"}, protected: []string{ws + "/.git/hooks"}}
	p := seatbeltProfile(l, []string{"/Users/me/.ssh", "/Users/me/Library/Application Support/Cairn"})
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(subpath "/Users/me/proj \"x\")\n(allow default)")`,
		`(subpath "/private/tmp/cairn-sbx-1/home")`,
		`(subpath "/Users/me/ref")`,
		`(literal "/Applications/Cairn.app/Contents/MacOS/cairn")`,
		`(subpath "/Users/me/.ssh")`,
		"(deny network*)",
	} {
		if !strings.Contains(p, want) {
			t.Fatalf("the profile lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "\n(allow default)") {
		t.Fatalf("a path injected a rule:\n%s", p)
	}
	writes := strings.Index(p, "(allow file-read* file-write*")
	prot := strings.Index(p, "(deny file-write*\n  (subpath \"/Users/me/proj")
	secrets := strings.Index(p, "(deny file-read* file-write*")
	if writes < 0 || prot < writes || secrets < prot || !strings.HasSuffix(p, "(deny network*)\n") {
		t.Fatalf("the denials do not come after the allowances (later rules win):\n%s", p)
	}
	if depth := sbplDepth(p); depth != 0 {
		t.Fatalf("unbalanced profile (depth %d):\n%s", depth, p)
	}
}

// sbplDepth is the parenthesis depth at the end of p, outside strings (0: balanced).
func sbplDepth(p string) int {
	depth, in, esc := 0, false, false
	for _, r := range p {
		switch {
		case esc:
			esc = false
		case in && r == '\\':
			esc = true
		case r == '"':
			in = !in
		case !in && r == '(':
			depth++
		case !in && r == ')':
			depth--
		}
	}
	return depth
}
