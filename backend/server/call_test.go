package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/server"
)

func TestMethodsListsCallableBoundMethods(t *testing.T) {
	ts := newTestServer(t, nil)
	want := []string{"Add", "Any", "Boom", "Check", "Echo", "Fail", "FailPlain", "FailTyped",
		"Move", "Names", "Ping", "Pointer", "Sum"}
	if got := ts.srv.Methods(); !slices.Equal(got, want) {
		t.Fatalf("Methods() = %v\nwant        %v", got, want)
	}
}

func TestCallShapes(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name, method, body string
		want               string // the whole JSON answer
	}{
		{"no results, empty body", "Ping", "", `{"result":null}`},
		{"no results, empty array", "Ping", "[]", `{"result":null}`},
		{"no results, null body", "Ping", "null", `{"result":null}`},
		{"one result", "Echo", `["héllo"]`, `{"result":"héllo"}`},
		{"value and nil error", "Add", `[2, 3]`, `{"result":5}`},
		{"struct argument and result", "Move", `[{"x":1,"y":2}, 3]`, `{"result":{"x":4,"y":2}}`},
		{"pointer argument", "Pointer", `[{"x":7,"y":8}]`, `{"result":{"x":7,"y":8}}`},
		{"null pointer argument", "Pointer", `[null]`, `{"result":null}`},
		{"variadic without extras", "Sum", `[1]`, `{"result":1}`},
		{"variadic with extras", "Sum", `[1, 2, 3, 4]`, `{"result":10}`},
		{"any in, any out", "Any", `[{"a":[1,"b"]}]`, `{"result":{"a":[1,"b"]}}`},
		{"slice result", "Names", `[]`, `{"result":["a","b"]}`},
		{"error only, nil", "Check", `[true]`, `{"result":null}`},
		{"typed nil error", "FailTyped", `[false]`, `{"result":null}`},
		{"whitespace around body", "Echo", " \n [\"x\"] \n", `{"result":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.call(t, tt.method, tt.body)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
				t.Fatalf("content type %q", r.header.Get("Content-Type"))
			}
			if !jsonEqual(t, r.body, tt.want) {
				t.Fatalf("body %s, want %s", r.body, tt.want)
			}
		})
	}
}

func TestCallRefusals(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name, method, body string
		status             int
		code               string
		param              string // a param key the error must carry
	}{
		{"unknown method", "Nope", `[]`, 404, "method_unknown", "method"},
		{"context parameter is not exposed", "WithContext", `[]`, 404, "method_unknown", "method"},
		{"two non-error results are not exposed", "Pair", `[]`, 404, "method_unknown", "method"},
		{"func parameter is not exposed", "Callback", `[null]`, 404, "method_unknown", "method"},
		{"chan result is not exposed", "Stream", `[]`, 404, "method_unknown", "method"},
		{"unexported method", "helper", `[]`, 404, "method_unknown", "method"},
		{"lower-cased name", "echo", `["x"]`, 404, "method_unknown", "method"},
		{"too few arguments", "Add", `[1]`, 400, "bad_request_body", "message"},
		{"too many arguments", "Echo", `["a", "b"]`, 400, "bad_request_body", "message"},
		{"arguments to a method without parameters", "Ping", `[1]`, 400, "bad_request_body", "message"},
		{"wrong argument type", "Add", `["2", 3]`, 400, "bad_request_body", "message"},
		{"wrong struct field type", "Move", `[{"x":"one"}, 1]`, 400, "bad_request_body", "message"},
		{"wrong variadic element", "Sum", `[1, "two"]`, 400, "bad_request_body", "message"},
		{"variadic without its fixed argument", "Sum", `[]`, 400, "bad_request_body", "message"},
		{"object instead of array", "Echo", `{"s":"x"}`, 400, "bad_request_body", "message"},
		{"bare value instead of array", "Echo", `"x"`, 400, "bad_request_body", "message"},
		{"truncated JSON", "Add", `[1, 2`, 400, "bad_request_body", "message"},
		{"trailing garbage", "Add", `[1, 2] [3]`, 400, "bad_request_body", "message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.call(t, tt.method, tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			e := decodeErr(t, r)
			if e.Error.Code != tt.code || e.Error.I18nKey != "errors."+tt.code {
				t.Fatalf("code %q key %q, want %q", e.Error.Code, e.Error.I18nKey, tt.code)
			}
			if e.Error.Params[tt.param] == nil || e.Error.Message == "" {
				t.Fatalf("error lacks param %q or message: %s", tt.param, r.body)
			}
		})
	}
	t.Run("nested API path", func(t *testing.T) {
		r := ts.call(t, "Echo/extra", `["x"]`)
		if r.status != 404 || decodeErr(t, r).Error.Code != "method_unknown" {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	})
}

func TestErrorStatusAndShape(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name       string
		method     string
		body       string
		status     int
		code       string
		params     map[string]any
		actionKind string
		actionTo   string
	}{
		{"invalid argument", "Check", `[false]`, 400, "invalid_argument", map[string]any{"message": "not ok"}, "", ""},
		{"validation code", "Fail", `["setting_invalid", ""]`, 400, "setting_invalid", nil, "", ""},
		{"validation code with action", "Fail", `["provider_invalid", "x"]`, 400, "provider_invalid", map[string]any{"name": "x"}, "open-settings", "providers"},
		{"*_invalid_* naming rule", "Fail", `["tool_args_invalid_json", ""]`, 400, "tool_args_invalid_json", nil, "", ""},
		{"*_not_found naming rule", "Fail", `["tool_not_found", "grep"]`, 404, "tool_not_found", map[string]any{"name": "grep"}, "", ""},
		{"not found", "Fail", `["not_found", ""]`, 404, "not_found", nil, "", ""},
		{"domain not found with action", "Fail", `["provider_not_found", "openai"]`, 404, "provider_not_found", map[string]any{"name": "openai"}, "open-settings", "providers"},
		{"unauthorized", "Fail", `["unauthorized", ""]`, 401, "unauthorized", nil, "", ""},
		{"conflict", "FailTyped", `[true]`, 409, "session_busy", nil, "", ""},
		{"every setting code is the request's fault", "Fail", `["setting_out_of_range", "chat.maxToolRounds"]`, 400, "setting_out_of_range", nil, "", ""},
		{"not a choice", "Fail", `["setting_not_a_choice", ""]`, 400, "setting_not_a_choice", nil, "", ""},
		{"unknown secret name", "Fail", `["secret_name_unknown", ""]`, 400, "secret_name_unknown", nil, "", ""},
		{"empty secret", "Fail", `["secret_empty", ""]`, 400, "secret_empty", nil, "", ""},
		{"*_exists naming rule", "Fail", `["mcp_server_exists", "x"]`, 409, "mcp_server_exists", nil, "", ""},
		{"state conflict", "Fail", `["approval_already_decided", ""]`, 409, "approval_already_decided", nil, "", ""},
		{"provider failures are a bad gateway", "Fail", `["model_unreachable", ""]`, 502, "model_unreachable", nil, "retry", ""},
		{"a model the provider lacks is its answer", "Fail", `["model_not_found", ""]`, 502, "model_not_found", nil, "open-settings", "providers"},
		{"a document that cannot be read", "Fail", `["doc_encrypted", ""]`, 400, "doc_encrypted", nil, "", ""},
		{"a page that cannot be fetched", "Fail", `["fetch_too_large", ""]`, 502, "fetch_too_large", nil, "", ""},
		{"a search provider refusing its key", "Fail", `["search_api_key_invalid", ""]`, 502, "search_api_key_invalid", nil, "open-settings", "web-search"},
		{"a search provider rate limiting", "Fail", `["search_rate_limited", ""]`, 502, "search_rate_limited", nil, "retry", ""},
		{"a SearXNG without JSON", "Fail", `["searxng_json_disabled", ""]`, 502, "searxng_json_disabled", nil, "open-settings", "web-search"},
		{"a search key not set yet", "Fail", `["tavily_api_key_required", ""]`, 409, "tavily_api_key_required", nil, "open-settings", "web-search"},
		{"an unknown search provider", "Fail", `["search_provider_unknown", ""]`, 400, "search_provider_unknown", nil, "open-settings", "web-search"},
		{"too many import entries", "Fail", `["mcp_import_too_many", ""]`, 400, "mcp_import_too_many", nil, "", ""},
		{"MCP failures are a bad gateway", "Fail", `["mcp_command_not_found", ""]`, 502, "mcp_command_not_found", nil, "open-settings", "mcp"},
		{"other codes are server errors", "Fail", `["internal", ""]`, 500, "internal", nil, "", ""},
		{"uncatalogued code becomes unknown", "Fail", `["no_such_code", ""]`, 500, "unknown", nil, "", ""},
		{"plain Go error keeps its text", "FailPlain", `[]`, 500, "unknown", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.call(t, tt.method, tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(r.body, &top); err != nil || len(top) != 1 || top["error"] == nil {
				t.Fatalf("want exactly {\"error\": …}, got %s", r.body)
			}
			e := decodeErr(t, r).Error
			if e.Code != tt.code || e.I18nKey != "errors."+tt.code || e.Message == "" {
				t.Fatalf("error %+v, want code %s", e, tt.code)
			}
			for k, v := range tt.params {
				if e.Params[k] != v {
					t.Fatalf("param %s = %v, want %v", k, e.Params[k], v)
				}
			}
			switch {
			case tt.actionKind == "" && e.Action != nil:
				t.Fatalf("unexpected action %+v", e.Action)
			case tt.actionKind != "" && (e.Action == nil || e.Action.Kind != tt.actionKind || e.Action.Target != tt.actionTo):
				t.Fatalf("action %+v, want %s/%s", e.Action, tt.actionKind, tt.actionTo)
			}
		})
	}
	t.Run("plain error message reaches the client", func(t *testing.T) {
		e := decodeErr(t, ts.call(t, "FailPlain", "")).Error
		if !strings.Contains(e.Message, "disk on fire") {
			t.Fatalf("message %q lost the raw text", e.Message)
		}
	})
}

func TestPanicInMethodIsRecovered(t *testing.T) {
	ts := newTestServer(t, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			r := ts.call(t, "Boom", "")
			if r.status != http.StatusInternalServerError {
				t.Errorf("status %d: %s", r.status, r.body)
				return
			}
			if e := decodeErr(t, r).Error; e.Code != "internal" || !strings.Contains(e.Message, "kaboom") {
				t.Errorf("error %+v", e)
			}
		})
	}
	wg.Wait()
	if r := ts.call(t, "Echo", `["still here"]`); r.status != 200 || !jsonEqual(t, r.body, `{"result":"still here"}`) {
		t.Fatalf("server did not survive the panic: %d %s", r.status, r.body)
	}
}

func TestBodyLimit(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) { c.MaxBodyBytes = 64 })
	big := `["` + strings.Repeat("x", 100) + `"]`
	tests := []struct {
		name   string
		body   io.Reader
		status int
	}{
		{"under the limit", strings.NewReader(`["` + strings.Repeat("x", 40) + `"]`), 200},
		{"over the limit with Content-Length", strings.NewReader(big), 413},
		{"over the limit, chunked", io.MultiReader(strings.NewReader(big)), 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, http.MethodPost, "/api/Echo", tt.body, bearer(testToken))
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.status == 413 {
				if e := decodeErr(t, r).Error; e.Code != "body_too_large" {
					t.Fatalf("code %s", e.Code)
				}
			}
		})
	}
}

func TestWrongHTTPMethod(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		method, path, allow string
	}{
		{http.MethodGet, "/api/Echo", "POST"},
		{http.MethodPut, "/api/Echo", "POST"},
		{http.MethodDelete, "/api/Nope", "POST"},
		{http.MethodPost, "/api/health", "GET, HEAD"},
		{http.MethodPost, "/api/events", "GET"},
		{http.MethodPost, "/", "GET, HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := ts.do(t, tt.method, tt.path, strings.NewReader("[]"), bearer(testToken))
			if r.status != http.StatusMethodNotAllowed {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if got := r.header.Get("Allow"); got != tt.allow {
				t.Fatalf("Allow %q, want %q", got, tt.allow)
			}
		})
	}
}
