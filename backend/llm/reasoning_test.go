package llm

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// Reasoning choices go out in each provider's documented fields, and only to providers
// that have them.
func TestReasoningControlsOnTheWire(t *testing.T) {
	tests := []struct {
		preset string
		choice Reasoning
		want   map[string]string // field → JSON; absent fields must not be sent
	}{
		{"deepseek", Reasoning{Effort: EffortHigh}, map[string]string{"thinking": `{"type":"enabled"}`, "reasoning_effort": `"high"`}},
		{"deepseek", Reasoning{Effort: EffortOff}, map[string]string{"thinking": `{"type":"disabled"}`}},
		{"deepseek", Reasoning{Effort: EffortMedium}, nil}, // not a DeepSeek level
		{"qwen", Reasoning{Effort: EffortOn, Budget: 2048}, map[string]string{"enable_thinking": `true`, "thinking_budget": `2048`}},
		{"qwen", Reasoning{Effort: EffortOff}, map[string]string{"enable_thinking": `false`}},
		{"openrouter", Reasoning{Effort: EffortLow}, map[string]string{"reasoning": `{"effort":"low"}`}},
		{"openrouter", Reasoning{Budget: 3000}, map[string]string{"reasoning": `{"max_tokens":3000}`}},
		{"openrouter", Reasoning{Effort: EffortOff}, map[string]string{"reasoning": `{"effort":"none"}`}},
		{"openai", Reasoning{Effort: EffortMinimal, Budget: 99}, map[string]string{"reasoning_effort": `"minimal"`}},
		{"zhipu", Reasoning{Effort: EffortOff}, map[string]string{"thinking": `{"type":"disabled"}`}},
		{"moonshot", Reasoning{Effort: EffortHigh, Budget: 10}, nil},
		{PresetCustom, Reasoning{Effort: EffortHigh}, nil},
		{"deepseek", Reasoning{}, nil},
	}
	fields := []string{"thinking", "reasoning_effort", "enable_thinking", "thinking_budget", "reasoning"}
	for _, tt := range tests {
		srv := llmtest.Start(t)
		srv.Enqueue(llmtest.Reply{Text: "ok"})
		c := NewClient(NewHTTPClient(), "p", srv.URL, "k", DefaultRetry, WithDialect(DialectFor(tt.preset, "")))
		req := userReq("m")
		req.Reasoning = tt.choice
		if _, err := c.Stream(context.Background(), req, Handler{}); err != nil {
			t.Fatalf("%s %+v: %v", tt.preset, tt.choice, err)
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			got, has := body[f]
			want, should := tt.want[f]
			if has != should || (has && !sameJSON(string(got), want)) {
				t.Errorf("%s %+v: %s = %s (sent %v), want %s (sent %v)", tt.preset, tt.choice, f, got, has, want, should)
			}
		}
		if body["model"] == nil || body["stream"] == nil || body["messages"] == nil {
			t.Errorf("%s: the patched body lost go-openai's fields: %s", tt.preset, srv.Requests()[0].Raw)
		}
	}
}

// Mistral refuses fields it does not document: its dialect leaves stream_options out and
// still reads the usage its last chunk carries.
func TestMistralDialectLeavesOutStreamOptions(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Reply{Raw: []string{
		`{"id":"c6a1","object":"chat.completion.chunk","created":1758000000,"model":"mistral-medium-latest","choices":[{"index":0,"delta":{"role":"assistant","content":"Bonjour"},"finish_reason":null}]}`,
		`{"id":"c6a1","object":"chat.completion.chunk","created":1758000000,"model":"mistral-medium-latest","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"total_tokens":8,"completion_tokens":3}}`,
		`[DONE]`,
	}})
	c := NewClient(NewHTTPClient(), "p", srv.URL, "k", DefaultRetry, WithDialect(DialectFor("mistral", "")))
	res, err := c.Stream(context.Background(), userReq("mistral-medium-latest"), Handler{})
	if err != nil || res.Text != "Bonjour" || res.Usage == nil || res.Usage.TotalTokens != 8 {
		t.Fatalf("err %v res %+v", err, res)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	if _, has := body["stream_options"]; has {
		t.Fatalf("stream_options sent to Mistral: %s", srv.Requests()[0].Raw)
	}
}

func TestDialectFor(t *testing.T) {
	deepseek, _ := PresetByID("deepseek")
	if got := DialectFor(PresetCustom, "https://api.deepseek.com/v1/"); !reflect.DeepEqual(got, deepseek.Dialect) {
		t.Errorf("custom provider at DeepSeek's host: %+v", got)
	}
	if got := DialectFor(PresetCustom, "http://127.0.0.1:9999/v1"); got != (Dialect{}) {
		t.Errorf("unknown host: %+v", got)
	}
	if got := DialectFor("deepseek", "http://127.0.0.1:9999/v1"); got.ReasoningBack != ReasoningBackToolCalls {
		t.Errorf("DeepSeek preset behind a proxy: %+v", got)
	}
}

// Rejections Cairn can fix name the cause and what to change.
func TestExplanatoryRejections(t *testing.T) {
	toolHistory := []Message{{Role: RoleUser, Content: "q"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "f", Arguments: "{}"}}},
		{Role: RoleTool, ToolCallID: "c1", Content: "r"}}
	t.Run("reasoning must be passed back", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Handle(llmtest.DeepSeekThinking(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} }))
		c := NewClient(NewHTTPClient(), "p", srv.URL, "k", RetryPolicy{}) // no dialect: an unknown host
		_, err := c.Stream(context.Background(), Request{Model: "deepseek-v4-flash", Messages: toolHistory}, Handler{})
		assertCode(t, err, apperr.ModelReasoningRequired)
		ae := apperr.From(err)
		if ae.Params["model"] != "deepseek-v4-flash" || ae.Action == nil || ae.Action.Target != "providers" {
			t.Errorf("params %v action %+v", ae.Params, ae.Action)
		}
		// The same history through the DeepSeek dialect is accepted.
		c = NewClient(NewHTTPClient(), "p", srv.URL, "k", RetryPolicy{}, WithDialect(DialectFor("deepseek", "")))
		if _, err := c.Stream(context.Background(), Request{Model: "deepseek-v4-flash", Messages: toolHistory}, Handler{}); err != nil {
			t.Fatalf("with the dialect: %v", err)
		}
	})
	t.Run("a reasoning control the provider refuses", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(llmtest.Reply{Status: 400, ErrorBody: `{"error":{"code":"invalid_parameter_error","param":null,"message":"<400> InternalError.Algo.InvalidParameter: The value of the enable_thinking parameter is restricted to True.","type":"invalid_request_error"},"id":"chatcmpl-1","request_id":"1"}`})
		c := NewClient(NewHTTPClient(), "p", srv.URL, "k", RetryPolicy{}, WithDialect(DialectFor("qwen", "")))
		req := userReq("qwq-plus")
		req.Reasoning = Reasoning{Effort: EffortOff}
		_, err := c.Stream(context.Background(), req, Handler{})
		assertCode(t, err, apperr.ModelReasoningOptionRefused)
		if p := apperr.From(err).Params; p["field"] != "enable_thinking" || p["model"] != "qwq-plus" || p["message"] == "" {
			t.Errorf("params %v", p)
		}
	})
	t.Run("a field the provider refuses as unknown (Mistral)", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(llmtest.Reply{Status: 422, ErrorBody: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_error","param":null,"code":null}`})
		c := NewClient(NewHTTPClient(), "p", srv.URL, "k", RetryPolicy{})
		_, err := c.Stream(context.Background(), userReq("mistral-medium-latest"), Handler{})
		assertCode(t, err, apperr.ModelFieldRefused)
		ae := apperr.From(err)
		if ae.Params["field"] != "stream_options" || ae.Params["message"] != "Extra inputs are not permitted" || ae.Action == nil || ae.Action.Target != "providers" {
			t.Errorf("params %v action %+v", ae.Params, ae.Action)
		}
	})
	t.Run("OpenAI's unrecognized argument", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "Unrecognized request argument supplied: thinking", Type: "invalid_request_error"}})
		c := NewClient(NewHTTPClient(), "p", srv.URL, "k", RetryPolicy{})
		_, err := c.Stream(context.Background(), userReq("m"), Handler{})
		assertCode(t, err, apperr.ModelFieldRefused)
		if got := apperr.From(err).Params["field"]; got != "thinking" {
			t.Errorf("field = %v", got)
		}
	})
	t.Run("the same words without a control sent stay a plain rejection", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "enable_thinking is restricted"}})
		c := NewClient(NewHTTPClient(), "p", srv.URL, "k", RetryPolicy{}, WithDialect(DialectFor("qwen", "")))
		_, err := c.Stream(context.Background(), userReq("m"), Handler{})
		assertCode(t, err, apperr.ModelBadRequest)
	})
}
