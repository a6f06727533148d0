package mcp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLineConnRead: messages one per line, batches, blank and non-JSON lines skipped,
// lines longer than the read buffer, a last line without its newline, and a line over
// the limit as an error.
func TestLineConnRead(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 200<<10) + `"}}`
	cases := []struct {
		name      string
		in        string
		methods   []string // of the messages read, in order ("" for a response)
		skipped   int
		wantErr   error
		errSubstr string
	}{
		{"one per line", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n", []string{"", "a"}, 0, io.EOF, ""},
		{"crlf and blank lines", "\r\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n", []string{"a"}, 0, io.EOF, ""},
		{"noise skipped", "Server starting...\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{broken\n", []string{"a"}, 2, io.EOF, ""},
		{"batch", "[{\"jsonrpc\":\"2.0\",\"method\":\"a\"},{\"jsonrpc\":\"2.0\",\"method\":\"b\"}]\n", []string{"a", "b"}, 0, io.EOF, ""},
		{"longer than the buffer", long + "\n", []string{"notifications/message"}, 0, io.EOF, ""},
		{"no final newline", "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}", []string{"a"}, 0, io.EOF, ""},
		{"over the limit", `{"x":"` + strings.Repeat("y", maxStdioLine) + "\"}\n", nil, 0, nil, "longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			skipped := 0
			c := newLineConn(strings.NewReader(tc.in), io.Discard, func() error { return nil }, func(string) { skipped++ })
			var got []string
			var err error
			for {
				var m jsonrpc.Message
				m, err = c.Read(context.Background())
				if err != nil {
					break
				}
				switch m := m.(type) {
				case *jsonrpc.Request:
					got = append(got, m.Method)
				default:
					got = append(got, "")
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.methods, ",") || skipped != tc.skipped {
				t.Fatalf("read %q, skipped %d; want %q, %d", got, skipped, tc.methods, tc.skipped)
			}
			if tc.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
					t.Fatalf("error %v, want one saying %q", err, tc.errSubstr)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestDecodeMessageMatchesGoSDK: the connection's decoder gives what go-sdk's does for
// requests, notifications, results, errors and every id form, and refuses what it refuses.
func TestDecodeMessageMatchesGoSDK(t *testing.T) {
	cases := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"cairn-1","progress":1}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Echo: hi"}]}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":{"method":"server/discover"}}}`,
		`{"jsonrpc":"2.0","id":2.5,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":{"a":1},"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]}`,
	}
	for _, in := range cases {
		want, wantErr := jsonrpc.DecodeMessage([]byte(in))
		got, gotErr := decodeMessage([]byte(in))
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("%s: go-sdk error %v, ours %v", in, wantErr, gotErr)
		}
		if wantErr != nil {
			continue
		}
		wb, _ := jsonrpc.EncodeMessage(want)
		gb, _ := jsonrpc.EncodeMessage(got)
		if string(wb) != string(gb) {
			t.Fatalf("%s:\n go-sdk %s\n ours   %s", in, wb, gb)
		}
	}
}
