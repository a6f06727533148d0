package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

const key = "sk-test-key-1234567890abcdef"

func TestString(t *testing.T) {
	s := New()
	s.Put("provider.p1.apiKey", key)
	s.Put("websearch.tavily", "tvly-sp&ce/key+1")
	s.Put("short", "abc123")
	tests := []struct {
		name, in, want string
	}{
		{"whole value", "Incorrect API key provided: " + key + ".", "Incorrect API key provided: [redacted]."},
		{"prefix of 8", "key sk-test- was refused", "key [redacted] was refused"},
		{"longer prefix, cut", "bad key sk-test-key-12345…", "bad key [redacted]…"},
		{"prefix of 7 is ordinary text", "sk-test is a prefix", "sk-test is a prefix"},
		{"OpenAI's masked echo", "Incorrect API key provided: sk-te********************cdef.", "Incorrect API key provided: [redacted]."},
		{"first 3 and last 4", "key sk-…cdef rejected", "key [redacted] rejected"},
		{"dots", "key sk-t...bcdef rejected", "key [redacted] rejected"},
		{"a mask with another key's ends", "sk-te****wxyz", "sk-te****wxyz"},
		{"the last four alone (what Settings shows)", "key ****cdef", "key ****cdef"},
		{"twice", key + " and " + key, "[redacted] and [redacted]"},
		{"JSON-escaped", `{"k":"tvly-sp\u0026ce/key+1"}`, `{"k":"[redacted]"}`},
		{"URL-escaped", "GET /s?key=tvly-sp%26ce%2Fkey%2B1&q=x", "GET /s?key=[redacted]&q=x"},
		{"short values are left", "abc123 is short", "abc123 is short"},
		{"nothing to do", "all fine", "all fine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.String(tt.in); got != tt.want {
				t.Fatalf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestReplacedAndDeletedValuesStayRedacted(t *testing.T) {
	s := New()
	s.Put("a", "old-value-0001")
	s.Put("a", "new-value-0002")
	s.Put("b", "gone-value-0003")
	s.Forget("b")
	got := s.String("old-value-0001 new-value-0002 gone-value-0003")
	if got != "[redacted] [redacted] [redacted]" {
		t.Fatalf("got %q", got)
	}
}

func TestJSONValuesRedactTheirSecretFields(t *testing.T) {
	s := New()
	s.Put("mcp.x.oauth.token", `{"access_token":"at-0123456789abcdef","refresh_token":"rt-0123456789abcdef","token_type":"Bearer","issuer":"https://auth.example.com"}`)
	got := s.String("401: token at-0123456789abcdef expired; refresh rt-0123456789abcdef; ask https://auth.example.com")
	want := "401: token [redacted] expired; refresh [redacted]; ask https://auth.example.com"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestAHeaderValuesTokenIsRedactedAlone(t *testing.T) {
	s := New()
	s.Put("mcp.x.header.Authorization", "Bearer tok-0123456789abcdef")
	if got := s.String("token tok-0123456789abcdef rejected; Bearer is fine"); got != "token [redacted] rejected; Bearer is fine" {
		t.Fatalf("got %q", got)
	}
}

func TestAJSONSecretDoesNotMatchOtherJSON(t *testing.T) {
	s := New()
	s.Put("mcp.x.oauth.token", `{"access_token":"at-0123456789abcdef","token_type":"Bearer"}`)
	doc := []byte(`{"access_token_expires":1,"token_type":"Bearer","note":"at-0123456789abcdef"}`)
	var got map[string]any
	if err := json.Unmarshal(s.JSON(doc), &got); err != nil {
		t.Fatalf("not a JSON object any more: %s", s.JSON(doc))
	}
	if got["note"] != Placeholder || got["access_token_expires"] == nil || got["token_type"] != "Bearer" {
		t.Fatalf("got %v", got)
	}
}

func TestAURLSecretLeavesOtherAddressesAlone(t *testing.T) {
	s := New()
	s.Put("mcp.db.env.DATABASE_URL", "postgres://admin:pw-0123456789@db.internal:5432/app")
	s.Put("mcp.search.env.SEARCH_URL", "https://search.example.com/v1?api_key=key-0123456789abc")
	s.Put("mcp.hook.env.HOOK", "https://hooks.example.com/T000/B000/XXXXsecret")
	tests := []struct{ in, want string }{
		{"see https://example.org and postgres://other@host", "see https://example.org and postgres://other@host"},
		{"auth failed for postgres://admin:pw-0123456789@db.internal:5432/app", "auth failed for postgres://[redacted]@db.internal:5432/app"},
		{"password pw-0123456789 rejected", "password [redacted] rejected"},
		{"GET https://search.example.com/v1?api_key=key-0123456789abc&q=x", "GET https://search.example.com/v1?api_key=[redacted]&q=x"},
		{"a hook https://hooks.example.com/T000/B000/XXXXsecret fired", "a hook https://[redacted] fired"},
		{"key key-0123456789abc expired", "key [redacted] expired"},
	}
	for _, tt := range tests {
		if got := s.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNilAndEmptySetsRedactNothing(t *testing.T) {
	var s *Set
	if s.String(key) != key || s.Error(nil) != nil {
		t.Fatal("a nil set changed something")
	}
	s.Put("x", key) // no panic
	if New().String(key) != key {
		t.Fatal("an empty set changed something")
	}
}

func TestError(t *testing.T) {
	s := New()
	s.Put("k", key)
	cause := errors.New("HTTP 401: " + key)
	e := apperr.Wrap(cause, apperr.ModelAuthFailed, "provider answered").WithParam("message", "bad "+key).
		WithParam("list", []string{key}).WithParam("n", 3)
	got := s.Error(e)
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "sk-test-") {
		t.Fatalf("key left in %s", b)
	}
	if got.Code != apperr.ModelAuthFailed || got.I18nKey != e.I18nKey || got.Params["n"] != 3 || !errors.Is(got, cause) {
		t.Fatalf("lost more than the key: %+v", got)
	}
	if !strings.Contains(e.Message, key) {
		t.Fatal("the original was changed")
	}
}

func TestJSON(t *testing.T) {
	s := New()
	s.Put("k", key)
	clean := []byte(`{"a":"b","n":1234567890123}`)
	if got := s.JSON(clean); &got[0] != &clean[0] {
		t.Fatal("a clean document was rewritten")
	}
	raw := []byte(`{"error":{"message":"Incorrect API key provided: ` + key + `"},"seq":1733000000000123,"ok":true}`)
	got := s.JSON(raw)
	var v struct {
		Error struct{ Message string }
		Seq   json.Number
		OK    bool
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	if v.Error.Message != "Incorrect API key provided: [redacted]" || v.Seq != "1733000000000123" || !v.OK {
		t.Fatalf("got %s", got)
	}
}

func TestHandler(t *testing.T) {
	s := New()
	s.Put("k", key)
	var buf bytes.Buffer
	log := slog.New(s.Handler(slog.NewTextHandler(&buf, nil))).With("key", key)
	log.Info("refused "+key, "err", errors.New("401 "+key), "body", key, slog.Group("req", "auth", "Bearer "+key),
		"value", struct{ Key string }{key}, "n", 1)
	out := buf.String()
	if strings.Contains(out, "sk-test-") {
		t.Fatalf("key in the log: %s", out)
	}
	if !strings.Contains(out, "n=1") || strings.Count(out, Placeholder) != 6 {
		t.Fatalf("log lost its shape: %s", out)
	}
}

func TestRedactionWaitsForTheFirstLoad(t *testing.T) {
	s := New()
	done := s.Loading()
	go func() {
		time.Sleep(50 * time.Millisecond)
		s.Put("k", key)
		done()
	}()
	if got := s.String("echo " + key); got != "echo [redacted]" {
		t.Fatalf("redacted before the load ended: %q", got)
	}
}
