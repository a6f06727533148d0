package owner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// TypeHello is the first event of a stream (server.TypeHello): subscribed from now on.
const TypeHello = "hello"

// Client talks to the owner of a data directory over its control socket.
type Client struct {
	sock string
	hc   *http.Client
}

// NewClient is a client of the owner listening on sock. It connects only to a socket
// whose other end is this user's process: a socket someone else put in a shared
// directory is never spoken to.
func NewClient(sock string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", sock)
			if err != nil {
				return nil, err
			}
			if !ownedByMe(c) {
				c.Close()
				return nil, fmt.Errorf("the control socket %s belongs to another user", sock)
			}
			return c, nil
		},
		DisableCompression: true,
	}
	return &Client{sock: sock, hc: &http.Client{Transport: tr}}
}

// ownedByMe: the other end of c is a process of this user.
func ownedByMe(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	uid, known := peerUID(uc)
	return known && uid == os.Getuid()
}

// Close drops idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// gone is the error of an owner that did not answer.
func gone(err error) *apperr.Error {
	return apperr.Wrap(err, apperr.OwnerGone, "the owner of the data directory stopped answering")
}

func (c *Client) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://cairn"+path, bytes.NewReader(body))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "build a control request")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, apperr.Wrap(ctx.Err(), apperr.Canceled, "control request")
		}
		return nil, gone(err)
	}
	return resp, nil
}

// decode reads {"result": …} into out, or {"error": …} as the owner's *apperr.Error.
func decode(resp *http.Response, out any) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return gone(err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error *apperr.Error `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != nil && e.Error.Code != "" {
			return e.Error
		}
		return apperr.New(apperr.Internal, "the owner answered %s", resp.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return apperr.Wrap(err, apperr.Internal, "read the owner's answer")
	}
	return nil
}

// Status is the owner's description with its open windows counted now.
func (c *Client) Status(ctx context.Context) (Info, error) {
	resp, err := c.do(ctx, http.MethodGet, "/control/status", nil)
	if err != nil {
		return Info{}, err
	}
	var in Info
	return in, decode(resp, &in)
}

// Post sends body to one of the owner's extra control routes (Control.Routes) and
// returns its answer to read as it streams; an answer other than 200 is its error.
func (c *Client) Post(ctx context.Context, path string, body []byte) (*http.Response, error) {
	resp, err := c.do(ctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, decode(resp, nil)
	}
	return resp, nil
}

// Focus asks the owner to bring its window forward, passing on a second launch's
// arguments; data_dir_busy when the owner has no window (`cairn serve`).
func (c *Client) Focus(ctx context.Context, args []string) error {
	if args == nil {
		args = []string{}
	}
	body, _ := json.Marshal(args)
	resp, err := c.do(ctx, http.MethodPost, "/control/focus", body)
	if err != nil {
		return err
	}
	return decode(resp, nil)
}

// Call calls a facade method (POST /api/<method>) with args and reads its result into out
// (nil to drop it). Errors are the owner's apperr.Error as the method returned it.
func (c *Client) Call(ctx context.Context, method string, out any, args ...any) error {
	return c.call(ctx, "/api/", method, out, args)
}

// CallOwner calls one of the calls only commands make (Control.Calls), as Call does.
func (c *Client) CallOwner(ctx context.Context, method string, out any, args ...any) error {
	return c.call(ctx, "/control/api/", method, out, args)
}

func (c *Client) call(ctx context.Context, prefix, method string, out any, args []any) error {
	if args == nil {
		args = []any{}
	}
	body, err := json.Marshal(args)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "encode the arguments of %s", method)
	}
	resp, err := c.do(ctx, http.MethodPost, prefix+url.PathEscape(method), body)
	if err != nil {
		return err
	}
	if out == nil {
		return decode(resp, nil)
	}
	res := struct {
		Result any `json:"result"`
	}{out}
	return decode(resp, &res)
}

// Browser asks the owner to serve the browser UI on addr and returns its address. It is
// served until ctx ends; done is closed (with the reason in *err after) when the owner
// stops first.
func (c *Client) Browser(ctx context.Context, addr string) (string, <-chan error, error) {
	resp, err := c.do(ctx, http.MethodPost, "/control/browser?addr="+url.QueryEscape(addr), []byte{})
	if err != nil {
		return "", nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, decode(resp, nil)
	}
	var res struct {
		URL string `json:"url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		resp.Body.Close()
		return "", nil, gone(err)
	}
	done := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		_, err := io.Copy(io.Discard, resp.Body)
		if ctx.Err() != nil {
			done <- nil
			return
		}
		done <- gone(errors.Join(io.ErrUnexpectedEOF, err))
	}()
	return res.URL, done, nil
}

// Stream is the owner's event bus as a channel; C closes when the stream ends (Err says
// why).
type Stream struct {
	C      <-chan events.Event
	cancel context.CancelFunc
	err    error
	done   chan struct{}
}

// Close ends the stream.
func (s *Stream) Close() {
	s.cancel()
	<-s.done
}

// Err is why C closed: nil after Close.
func (s *Stream) Err() error {
	<-s.done
	return s.err
}

// Events subscribes to the owner's bus. It returns once the owner says it subscribed, so
// nothing done after it can be missed.
func (c *Client) Events(ctx context.Context, buffer int) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.do(ctx, http.MethodGet, "/api/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		return nil, decode(resp, nil)
	}
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	hello, err := readEvent(r)
	if err != nil || hello.Type != TypeHello {
		cancel()
		resp.Body.Close()
		return nil, gone(fmt.Errorf("no hello on the event stream: %v", err))
	}
	ch := make(chan events.Event, buffer)
	s := &Stream{C: ch, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(ch)
		defer resp.Body.Close()
		for {
			ev, err := readEvent(r)
			if err != nil {
				if ctx.Err() == nil {
					s.err = gone(err)
				}
				return
			}
			select {
			case ch <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return s, nil
}

// readEvent reads Server-Sent Events up to the next data event: `data: <JSON>` lines and
// a blank line; comments (heartbeats) and retry lines are skipped.
func readEvent(r *bufio.Reader) (events.Event, error) {
	var data []byte
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return events.Event{}, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if len(data) == 0 {
				continue
			}
			var ev events.Event
			if err := json.Unmarshal(data, &ev); err != nil {
				return events.Event{}, fmt.Errorf("event stream: %w", err)
			}
			return ev, nil
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, strings.TrimPrefix(string(line[5:]), " ")...)
		}
	}
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
