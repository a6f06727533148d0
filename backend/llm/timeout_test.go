package llm

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// silentServer accepts connections, reads the request and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/v1"
}

func TestTimeouts(t *testing.T) {
	const limit = 300 * time.Millisecond
	tests := []struct {
		name    string
		reply   *llmtest.Reply // nil: a server that accepts and never answers
		want    apperr.Code
		partial string
	}{
		{"accepts and never answers", nil, apperr.ModelFirstByteTimeout, ""},
		{"headers, then nothing", &llmtest.Reply{Text: "late", FirstDelay: time.Minute}, apperr.ModelFirstByteTimeout, ""},
		{"stops between chunks", &llmtest.Reply{Text: "the first part and then", ChunkRunes: 5, StallAfter: 4}, apperr.ModelStreamStalled, "the first part"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := silentServer(t)
			if tt.reply != nil {
				srv := llmtest.Start(t)
				srv.Enqueue(*tt.reply)
				url = srv.URL
			}
			hc := NewHTTPClient()
			t.Cleanup(hc.CloseIdleConnections)
			c := NewClient(hc, "p", url, "k", DefaultRetry)
			req := userReq("m")
			req.FirstByteTimeout, req.IdleTimeout = limit, limit
			col := newCollector()
			start := time.Now()
			res, err := c.Stream(context.Background(), req, col.handler())
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("took %v", el)
			}
			assertCode(t, err, tt.want)
			ae := apperr.From(err)
			if ae.Action == nil || ae.Action.Kind != "retry" || ae.Params["seconds"] != 1 || ae.Params["providerId"] != "p" {
				t.Errorf("error %+v params %v action %+v", ae, ae.Params, ae.Action)
			}
			if !strings.HasPrefix(res.Text, tt.partial) || (tt.partial != "" && res.Text == "") {
				t.Errorf("kept %q, want prefix %q", res.Text, tt.partial)
			}
		})
	}
}

// A slow stream whose pauses stay under the idle limit, with keep-alive comments, and a
// first byte that takes longer than the idle limit, is not cut off.
func TestSlowStreamWithinLimits(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Reply{Text: "slow but steady", ChunkRunes: 4, FirstDelay: 500 * time.Millisecond, Delay: 60 * time.Millisecond, Comments: true})
	c := testClient(t, srv, DefaultRetry)
	req := userReq("m")
	req.FirstByteTimeout, req.IdleTimeout = 2*time.Second, 300*time.Millisecond
	res, err := c.Stream(context.Background(), req, Handler{})
	if err != nil || res.Text != "slow but steady" {
		t.Fatalf("err %v text %q", err, res.Text)
	}
}

// The user's stop is a cancel, not a timeout, even with limits set.
func TestCancelIsNotATimeout(t *testing.T) {
	url := silentServer(t)
	c := NewClient(NewHTTPClient(), "p", url, "k", DefaultRetry)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req := userReq("m")
	req.FirstByteTimeout = time.Minute
	_, err := c.Stream(ctx, req, Handler{})
	assertCode(t, err, apperr.Canceled)
}
