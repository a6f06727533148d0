package logring

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func decodeAll(chunks ...[]byte) []string {
	var lines []string
	d := NewDecoder(func(l string) { lines = append(lines, l) })
	for _, c := range chunks {
		d.Write(c)
	}
	d.Flush()
	return lines
}

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			b = append(b, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func TestDecoderEncodings(t *testing.T) {
	gbk := []byte{0xC4, 0xE3, 0xBA, 0xC3, '\n'} // 你好
	le := utf16le("错误: 端口 3001\r\nok 🚀\n", true)
	cases := []struct {
		name   string
		chunks [][]byte
		want   []string
	}{
		{"utf-8 split mid-rune", [][]byte{[]byte("héllo\nwor"), []byte("ld 世"), []byte("界\nlast")}, []string{"héllo", "world 世界", "last"}},
		{"utf-8 bom and crlf", [][]byte{[]byte("\xEF\xBB\xBFa\r\nb\r\n")}, []string{"a", "b"}},
		{"gbk", [][]byte{gbk, []byte("plain\n")}, []string{"你好", "plain"}},
		{"utf-16le bom, split everywhere", splitEvery(le, 3), []string{"错误: 端口 3001", "ok 🚀"}},
		{"utf-16le without bom", [][]byte{utf16le("Starting\nnext\n", false)}, []string{"Starting", "next"}},
		{"utf-16be bom", [][]byte{{0xFE, 0xFF, 0, 'h', 0, 'i', 0, '\n'}}, []string{"hi"}},
		{"short first write", [][]byte{[]byte("a"), []byte("\nb\n")}, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := decodeAll(tc.chunks...); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func splitEvery(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

func TestDecoderCapsLongLines(t *testing.T) {
	lines := decodeAll([]byte(strings.Repeat("x", MaxLineBytes*2+10) + "\n"))
	if len(lines) != 3 || len(lines[0]) != MaxLineBytes || lines[2] != strings.Repeat("x", 10) {
		t.Fatalf("%d lines", len(lines))
	}
}

func TestRingKeepsTheLastLinesAndTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "s.log")
	var seen int
	r := New(3, path, func(Line) { seen++ })
	for _, s := range []string{"one", "two", "three", "four"} {
		r.Add(StreamStderr, s)
	}
	r.Eventf("exited with code %d", 1)
	got := r.Lines(0)
	if len(got) != 3 || got[0].Text != "three" || got[2].Text != "exited with code 1" || seen != 5 {
		t.Fatalf("%+v", got)
	}
	if tail := r.LastStderr(5); !slices.Equal(tail, []string{"three", "four"}) {
		t.Fatalf("tail %v", tail)
	}
	if last := r.Lines(1); len(last) != 1 || last[0].Stream != StreamEvent {
		t.Fatalf("%+v", last)
	}
	r.Close()
	lines, err := ReadFile(path, 2)
	if err != nil || len(lines) != 2 || !strings.HasSuffix(lines[0], "stderr four") || !strings.Contains(lines[1], "exited with code 1") {
		t.Fatalf("%q %v", lines, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
}

func TestFilterCleansEveryLineFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "srv.log")
	var seen []Line
	r := New(10, path, func(l Line) { seen = append(seen, l) })
	r.SetFilter(func(s string) string { return strings.ReplaceAll(s, "tok-secret-1", "[redacted]") })
	_, _ = r.Stderr().Write([]byte("using tok-secret-1\n"))
	r.Eventf("started with %s", "tok-secret-1")
	_ = r.Close()
	b, _ := os.ReadFile(path)
	for _, where := range []string{string(b), fmt.Sprint(r.Lines(0)), fmt.Sprint(seen)} {
		if strings.Contains(where, "tok-secret-1") || !strings.Contains(where, "[redacted]") {
			t.Fatalf("not cleaned: %s", where)
		}
	}
}

// TestLinesAfterCloseStayOffDisk: a process's last stderr read after its server was
// removed (or Cairn closed) is kept in the ring but does not make the file again — a
// removed server's log came back, and a test's data directory could not be removed.
func TestLinesAfterCloseStayOffDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, "s.log")
	r := New(3, path, nil)
	r.Add(StreamStderr, "before")
	r.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	r.Add(StreamStderr, "after")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a line after Close made the log again: %v", err)
	}
	if got := r.Lines(0); len(got) != 2 || got[1].Text != "after" {
		t.Fatalf("the ring lost a line: %+v", got)
	}
}
