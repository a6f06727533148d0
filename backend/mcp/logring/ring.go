package logring

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Streams a line can come from.
const (
	StreamStderr = "stderr" // the server's standard error
	StreamEvent  = "event"  // Cairn's own note (started, exited, restarting, fell back to SSE)
)

// Line is one log line.
type Line struct {
	Time   int64  `json:"time"` // unix milliseconds
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// DefaultCapacity is how many lines a ring keeps in memory.
const DefaultCapacity = 1000

// MaxFileBytes is the size at which the log file is rotated to <name>.1.
const MaxFileBytes = 2 << 20

// Ring is one server's log: the last lines in memory and, when a path is set, every line
// appended to a file. Safe for concurrent use.
type Ring struct {
	mu    sync.Mutex
	lines []Line
	start int // index of the oldest line once the ring is full
	full  bool
	cap   int
	path  string
	file  *os.File
	size  int64
	on    func(Line)
	clean func(string) string // applied to every line before it is kept (SetFilter)
	// closed: lines still come (a process's last stderr, read after the server was
	// removed or Cairn closed) but go to the ring only, so the file is not made again.
	closed bool
}

// SetFilter makes every later line pass through clean before it is kept, written or
// announced: service.Open redacts known secrets a server prints. Call it before the ring
// is used.
func (r *Ring) SetFilter(clean func(string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clean = clean
}

// New returns a ring of capacity lines (DefaultCapacity when <= 0) that appends to path
// (none when empty) and calls on (may be nil) for every line, outside any lock of the
// caller's but inside the ring's, so lines arrive in order.
func New(capacity int, path string, on func(Line)) *Ring {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Ring{cap: capacity, path: path, on: on, lines: make([]Line, 0, min(capacity, 64))}
}

// Add appends a line.
func (r *Ring) Add(stream, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clean != nil {
		text = r.clean(text)
	}
	l := Line{Time: time.Now().UnixMilli(), Stream: stream, Text: text}
	if len(r.lines) < r.cap {
		r.lines = append(r.lines, l)
	} else {
		r.lines[r.start] = l
		r.start = (r.start + 1) % r.cap
		r.full = true
	}
	r.appendFile(l)
	if r.on != nil {
		r.on(l)
	}
}

// Stderr returns a writer that decodes a byte stream into stderr lines; call its Flush
// when the stream ends.
func (r *Ring) Stderr() *Decoder {
	return NewDecoder(func(line string) { r.Add(StreamStderr, line) })
}

// Eventf adds a note of Cairn's own.
func (r *Ring) Eventf(format string, args ...any) { r.Add(StreamEvent, fmt.Sprintf(format, args...)) }

// Lines returns up to the last n lines, oldest first (all when n <= 0).
func (r *Ring) Lines(n int) []Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]Line, 0, len(r.lines))
	all = append(all, r.lines[r.start:]...)
	all = append(all, r.lines[:r.start]...)
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

// LastStderr returns the last stderr lines (at most n), oldest first, to explain a crash.
func (r *Ring) LastStderr(n int) []string {
	lines := r.Lines(0)
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if lines[i].Stream == StreamStderr && lines[i].Text != "" {
			out = append(out, lines[i].Text)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Close closes the file for good (the ring stays readable and keeps taking lines).
func (r *Ring) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// appendFile writes one line; file errors only cost the file copy, never the server.
func (r *Ring) appendFile(l Line) {
	if r.path == "" || r.closed {
		return
	}
	if r.file == nil {
		if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
			return
		}
		f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		if st, err := f.Stat(); err == nil {
			r.size = st.Size()
		}
		r.file = f
	}
	s := fmt.Sprintf("%s %-6s %s\n", time.UnixMilli(l.Time).Format("2006-01-02T15:04:05.000"), l.Stream, l.Text)
	n, _ := r.file.WriteString(s)
	r.size += int64(n)
	if r.size > MaxFileBytes {
		r.file.Close()
		r.file = nil
		_ = os.Rename(r.path, r.path+".1")
	}
}

// ReadFile returns the last n lines of a log file written by a Ring (any Cairn process),
// for `cairn mcp logs`.
func ReadFile(path string, n int) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			lines = append(lines, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		lines = append(lines, string(b[start:]))
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}
