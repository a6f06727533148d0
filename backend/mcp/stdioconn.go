package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxStdioLine bounds one message from a stdio server (go-sdk's default: 16 MiB).
const maxStdioLine = 16 << 20

// lineConn is the stdio connection: newline-delimited JSON-RPC over the child's pipes
// (the MCP stdio transport). go-sdk's own reads every message through a goroutine, a
// channel and a decoder that allocates a large buffer per message; this one reads lines
// on the caller's goroutine from one buffer, which on a fast server is a visible part of
// every call. A line on stdout that is not JSON (a server printing a banner or a log
// line to the wrong stream) is passed to notJSON and skipped, instead of ending the
// session.
type lineConn struct {
	r       *bufio.Reader
	w       io.Writer
	close   func() error
	notJSON func(line string)
	seen    *atomic.Bool // when set, stored true at the first message read

	queue []jsonrpc.Message // the rest of a batch; reads are never concurrent

	writeMu sync.Mutex

	closeOnce sync.Once
	closeErr  error
}

func newLineConn(r io.Reader, w io.Writer, closeFn func() error, notJSON func(string)) *lineConn {
	return &lineConn{r: bufio.NewReaderSize(r, 64<<10), w: w, close: closeFn, notJSON: notJSON}
}

// Read returns the next message. It blocks in the pipe read; Close ends the process,
// which ends the read.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		switch line[0] {
		case '{':
			m, err := decodeMessage(line)
			if err != nil {
				c.skip(line, err)
				continue
			}
			c.saw()
			return m, nil
		case '[': // a JSON-RPC batch (protocol versions before 2025-06-18)
			var raws []json.RawMessage
			if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
				c.skip(line, errors.New("not a JSON-RPC batch"))
				continue
			}
			for _, raw := range raws {
				m, err := decodeMessage(raw)
				if err != nil {
					c.skip(raw, err)
					continue
				}
				c.queue = append(c.queue, m)
			}
			if len(c.queue) == 0 {
				continue
			}
			c.saw()
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		default:
			c.skip(line, errors.New("not JSON"))
		}
	}
}

// readLine returns the next line without its newline; the slice is valid until the next
// call. A line longer than maxStdioLine is an error: the stream cannot be resynchronised
// cheaply, and a server sending one is broken.
func (c *lineConn) readLine() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err == nil || (errors.Is(err, io.EOF) && len(line) > 0) {
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	long := append([]byte(nil), line...)
	for {
		more, err := c.r.ReadSlice('\n')
		long = append(long, more...)
		if len(long) > maxStdioLine {
			return nil, fmt.Errorf("a message from the server is longer than %d bytes", maxStdioLine)
		}
		if err == nil || (errors.Is(err, io.EOF) && len(long) > 0) {
			return long, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

func (c *lineConn) saw() {
	if c.seen != nil {
		c.seen.Store(true)
	}
}

func (c *lineConn) skip(line []byte, why error) {
	if c.notJSON == nil {
		return
	}
	const show = 200
	s := string(line)
	if len(s) > show {
		s = s[:show] + "…"
	}
	c.notJSON(fmt.Sprintf("%s (%v)", s, why))
}

// Write sends one message as one line; safe for concurrent use.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.w.Write(data)
	return err
}

// Close ends the session (for stdio: the server's whole process group).
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

// SessionID is empty: stdio has no session ids.
func (c *lineConn) SessionID() string { return "" }

// wireMessage is a JSON-RPC 2.0 message as it travels.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// decodeMessage is jsonrpc.DecodeMessage without its streaming decoder, which allocates
// a buffer of tens of KiB for every message, twice per tool call counting the result.
// The rules are the same: version "2.0", a method makes a request (or a notification
// without an id), otherwise a response that must have an id.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if w.JSONRPC != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", w.JSONRPC, "2.0")
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, err
	}
	if w.Method != nil {
		return &jsonrpc.Request{Method: *w.Method, ID: id, Params: w.Params}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("a JSON-RPC response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp, nil
}
