package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestServerValidationQuotesShort: a name that would act on a terminal or hide in a
// list is refused, and rejected values are quoted back by their beginning and length,
// never whole.
func TestServerValidationQuotesShort(t *testing.T) {
	huge := strings.Repeat("h", 100000)
	tests := []struct {
		name string
		srv  Server
		want string // in the reason
	}{
		{"escape in the name", Server{Name: "ok\x1b]0;owned\x07", Command: "echo"}, "printable"},
		{"bidi override in the name", Server{Name: "files\u202etxt", Command: "echo"}, "printable"},
		{"zero-width space in the name", Server{Name: "fi\u200bles", Command: "echo"}, "printable"},
		{"huge URL", Server{Name: "remote", Transport: TransportHTTP, URL: "ftp://" + huge}, `"ftp://hhhhhhhhhhhhhhhhhh…" (100,006 characters) is not an http(s) URL`},
		{"huge transport", Server{Name: "t", Transport: Transport(huge), Command: "echo"}, `(100,000 characters)`},
		{"huge variable name", Server{Name: "v", Command: "echo", Env: []Var{{Name: huge + "=", Value: "x"}}}, `(100,001 characters) is not a valid environment variable name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.srv.normalize()
			ae := apperr.From(err)
			if ae == nil || ae.Code != apperr.MCPServerInvalid || !strings.Contains(ae.Params["reason"].(string), tt.want) {
				t.Fatalf("err = %v, want a reason containing %q", err, tt.want)
			}
			if b, _ := json.Marshal(ae); len(b) > 600 {
				t.Fatalf("the error echoes the input: %d bytes", len(b))
			}
		})
	}
	ok := Server{Name: "Files — 文件 ✓", Command: "echo"}
	if err := ok.normalize(); err != nil {
		t.Fatalf("a printable name refused: %v", err)
	}
}
