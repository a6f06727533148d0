package llm

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// wantCall is a tool call as it must come out of the accumulator; Args is compared as
// parsed JSON.
type wantCall struct {
	ID, Name, Args string
}

// shape is one stream as a provider sends it, written from the provider's API reference:
// chunk order, nulls, empty strings and extra fields as documented.
type shape struct {
	name      string
	preset    string
	events    []string
	text      string
	reasoning string
	calls     []wantCall
	usage     *Usage
	finish    string
}

// recordedShapes: one per stream shape providers are known to send and one per preset
// provider.
var recordedShapes = []shape{
	{
		name: "deepseek thinking with a tool call", preset: "deepseek",
		events: []string{
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"The user asks for"},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":null,"reasoning_content":" the weather in Hangzhou."},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_Xk3pQ9","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"Hangzhou\"}"}}]},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"5f1b7c2e","object":"chat.completion.chunk","created":1761000000,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":312,"completion_tokens":41,"total_tokens":353,"prompt_tokens_details":{"cached_tokens":256},"completion_tokens_details":{"reasoning_tokens":18},"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":56}}`,
			`[DONE]`,
		},
		reasoning: "The user asks for the weather in Hangzhou.",
		calls:     []wantCall{{"call_00_Xk3pQ9", "get_weather", `{"location":"Hangzhou"}`}},
		usage:     &Usage{PromptTokens: 312, CompletionTokens: 41, TotalTokens: 353, ReasoningTokens: 18, CachedTokens: 256},
		finish:    "tool_calls",
	},
	{
		name: "deepseek tool call with empty reasoning", preset: "deepseek",
		events: []string{
			`{"id":"9a0e","object":"chat.completion.chunk","created":1761000001,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"9a0e","object":"chat.completion.chunk","created":1761000001,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_empty1","type":"function","function":{"name":"get_date","arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"9a0e","object":"chat.completion.chunk","created":1761000001,"model":"deepseek-chat","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":90,"completion_tokens":9,"total_tokens":99,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":90}}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"call_00_empty1", "get_date", `{}`}},
		usage:  &Usage{PromptTokens: 90, CompletionTokens: 9, TotalTokens: 99},
		finish: "tool_calls",
	},
	{
		name: "deepseek plain answer after thinking", preset: "deepseek",
		events: []string{
			`{"id":"77c1","object":"chat.completion.chunk","created":1761000002,"model":"deepseek-reasoner","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"77c1","object":"chat.completion.chunk","created":1761000002,"model":"deepseek-reasoner","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"9.11 < 9.8"},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"77c1","object":"chat.completion.chunk","created":1761000002,"model":"deepseek-reasoner","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":"9.8 is greater.","reasoning_content":null},"logprobs":null,"finish_reason":null}]}`,
			`{"id":"77c1","object":"chat.completion.chunk","created":1761000002,"model":"deepseek-reasoner","system_fingerprint":"fp_feb633d1f5_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":30,"total_tokens":50,"completion_tokens_details":{"reasoning_tokens":12},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":20}}`,
			`[DONE]`,
		},
		text: "9.8 is greater.", reasoning: "9.11 < 9.8",
		usage:  &Usage{PromptTokens: 20, CompletionTokens: 30, TotalTokens: 50, ReasoningTokens: 12},
		finish: "stop",
	},
	{
		name: "mistral thinking model: content as a list of parts", preset: "mistral",
		events: []string{
			`{"id":"c6a1e0f4","object":"chat.completion.chunk","created":1758000000,"model":"magistral-medium-2509","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"id":"c6a1e0f4","object":"chat.completion.chunk","created":1758000000,"model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Two plus two"}]}]},"finish_reason":null}]}`,
			`{"id":"c6a1e0f4","object":"chat.completion.chunk","created":1758000000,"model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":" is four."}]}]},"finish_reason":null}]}`,
			`{"id":"c6a1e0f4","object":"chat.completion.chunk","created":1758000000,"model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"The answer"}]},"finish_reason":null}]}`,
			`{"id":"c6a1e0f4","object":"chat.completion.chunk","created":1758000000,"model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":" is 4."},"finish_reason":null}]}`,
			`{"id":"c6a1e0f4","object":"chat.completion.chunk","created":1758000000,"model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"total_tokens":52,"completion_tokens":40}}`,
			`[DONE]`,
		},
		text: "The answer is 4.", reasoning: "Two plus two is four.",
		usage:  &Usage{PromptTokens: 12, CompletionTokens: 40, TotalTokens: 52},
		finish: "stop",
	},
	{
		name: "parallel calls opened without index, arguments later by position", preset: PresetCustom,
		events: []string{
			`{"id":"gen-7","object":"chat.completion.chunk","created":1757000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}},{"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":null}]}`,
			`{"id":"gen-7","object":"chat.completion.chunk","created":1757000000,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{\"city\":"}},{"function":{"arguments":"{\"zone\":"}}]},"finish_reason":null}]}`,
			`{"id":"gen-7","object":"chat.completion.chunk","created":1757000000,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"Paris\"}"}},{"function":{"arguments":"\"CET\"}"}}]},"finish_reason":null}]}`,
			`{"id":"gen-7","object":"chat.completion.chunk","created":1757000000,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`{"id":"gen-7","object":"chat.completion.chunk","created":1757000000,"model":"m","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":22,"total_tokens":62}}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"call_a", "get_weather", `{"city":"Paris"}`}, {"call_b", "get_time", `{"zone":"CET"}`}},
		usage:  &Usage{PromptTokens: 40, CompletionTokens: 22, TotalTokens: 62},
		finish: "tool_calls",
	},
	{
		name: "parallel calls without index, continued by id", preset: PresetCustom,
		events: []string{
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","type":"function","function":{"name":"read","arguments":""}},{"id":"call_b","type":"function","function":{"name":"list","arguments":""}}]},"finish_reason":null}]}`,
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_b","function":{"arguments":"{\"dir\":\"/\"}"}}]},"finish_reason":null}]}`,
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_a","function":{"arguments":"{\"path\":\"a.txt\"}"}}]},"finish_reason":null}]}`,
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"call_a", "read", `{"path":"a.txt"}`}, {"call_b", "list", `{"dir":"/"}`}},
		finish: "tool_calls",
	},
	{
		name: "calls opened without index, continued with one", preset: PresetCustom,
		events: []string{
			`{"id":"y","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":""}}]},"finish_reason":null}]}`,
			`{"id":"y","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]},"finish_reason":null}]}`,
			`{"id":"y","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_2","type":"function","function":{"name":"fetch","arguments":""}}]},"finish_reason":null}]}`,
			`{"id":"y","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"url\":\"https://example.com\"}"}}]},"finish_reason":null}]}`,
			`{"id":"y","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"go\"}"}}]},"finish_reason":null}]}`,
			`{"id":"y","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"call_1", "search", `{"q":"go"}`}, {"call_2", "fetch", `{"url":"https://example.com"}`}},
		finish: "tool_calls",
	},
	{
		name: "moonshot: usage only inside choices[0]", preset: "moonshot",
		events: []string{
			`{"id":"cmpl-1f4","object":"chat.completion.chunk","created":1698999575,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"id":"cmpl-1f4","object":"chat.completion.chunk","created":1698999575,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{"content":"你好"},"finish_reason":null}]}`,
			`{"id":"cmpl-1f4","object":"chat.completion.chunk","created":1698999575,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{"content":"！"},"finish_reason":null}]}`,
			`{"id":"cmpl-1f4","object":"chat.completion.chunk","created":1698999575,"model":"moonshot-v1-8k","choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":19,"completion_tokens":13,"total_tokens":32}}]}`,
			`[DONE]`,
		},
		text:   "你好！",
		usage:  &Usage{PromptTokens: 19, CompletionTokens: 13, TotalTokens: 32},
		finish: "stop",
	},
	{
		name: "moonshot kimi: tool call, usage in the choice and at the top", preset: "moonshot",
		events: []string{
			`{"id":"chatcmpl-68e","object":"chat.completion.chunk","created":1757000000,"model":"kimi-k2-0905-preview","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"id":"chatcmpl-68e","object":"chat.completion.chunk","created":1757000000,"model":"kimi-k2-0905-preview","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"functions.web_search:0","type":"function","function":{"name":"web_search","arguments":""}}]},"finish_reason":null}]}`,
			`{"id":"chatcmpl-68e","object":"chat.completion.chunk","created":1757000000,"model":"kimi-k2-0905-preview","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\": \"月之暗面\"}"}}]},"finish_reason":null}]}`,
			`{"id":"chatcmpl-68e","object":"chat.completion.chunk","created":1757000000,"model":"kimi-k2-0905-preview","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls","usage":{"prompt_tokens":120,"completion_tokens":17,"total_tokens":137,"cached_tokens":100}}],"usage":{"prompt_tokens":120,"completion_tokens":17,"total_tokens":137,"cached_tokens":100}}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"functions.web_search:0", "web_search", `{"query":"月之暗面"}`}},
		usage:  &Usage{PromptTokens: 120, CompletionTokens: 17, TotalTokens: 137},
		finish: "tool_calls",
	},
	{
		name: "qwen dashscope: usage null per chunk, id \"\" on continuations, final choices []", preset: "qwen",
		events: []string{
			`{"choices":[{"delta":{"content":null,"role":"assistant","reasoning_content":""},"index":0,"logprobs":null,"finish_reason":null}],"object":"chat.completion.chunk","usage":null,"created":1745213040,"system_fingerprint":null,"model":"qwen-plus","id":"chatcmpl-8b6a"}`,
			`{"choices":[{"delta":{"content":null,"role":null,"reasoning_content":"用户想知道杭州的天气"},"finish_reason":null,"index":0,"logprobs":null}],"object":"chat.completion.chunk","usage":null,"created":1745213040,"system_fingerprint":null,"model":"qwen-plus","id":"chatcmpl-8b6a"}`,
			`{"choices":[{"delta":{"content":null,"role":null,"tool_calls":[{"index":0,"id":"call_8f08d2b0fc0c4d8fab7123","type":"function","function":{"name":"get_current_weather","arguments":"{\"location\":"}}]},"finish_reason":null,"index":0,"logprobs":null}],"object":"chat.completion.chunk","usage":null,"created":1745213040,"system_fingerprint":null,"model":"qwen-plus","id":"chatcmpl-8b6a"}`,
			`{"choices":[{"delta":{"content":null,"role":null,"tool_calls":[{"index":0,"id":"","type":"function","function":{"arguments":" \"杭州\"}"}}]},"finish_reason":null,"index":0,"logprobs":null}],"object":"chat.completion.chunk","usage":null,"created":1745213040,"system_fingerprint":null,"model":"qwen-plus","id":"chatcmpl-8b6a"}`,
			`{"choices":[{"delta":{"content":null,"role":null,"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"","arguments":""}}]},"finish_reason":"tool_calls","index":0,"logprobs":null}],"object":"chat.completion.chunk","usage":null,"created":1745213040,"system_fingerprint":null,"model":"qwen-plus","id":"chatcmpl-8b6a"}`,
			`{"choices":[],"object":"chat.completion.chunk","usage":{"prompt_tokens":263,"completion_tokens":31,"total_tokens":294,"completion_tokens_details":{"reasoning_tokens":9},"prompt_tokens_details":{"cached_tokens":0}},"created":1745213040,"system_fingerprint":null,"model":"qwen-plus","id":"chatcmpl-8b6a"}`,
			`[DONE]`,
		},
		reasoning: "用户想知道杭州的天气",
		calls:     []wantCall{{"call_8f08d2b0fc0c4d8fab7123", "get_current_weather", `{"location":"杭州"}`}},
		usage:     &Usage{PromptTokens: 263, CompletionTokens: 31, TotalTokens: 294, ReasoningTokens: 9},
		finish:    "tool_calls",
	},
	{
		name: "openrouter: processing comments, reasoning field, usage after finish", preset: "openrouter",
		events: []string{
			`: OPENROUTER PROCESSING`,
			`{"id":"gen-1761-abc","provider":"DeepInfra","model":"deepseek/deepseek-r1","object":"chat.completion.chunk","created":1761000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Greet","reasoning_details":[{"type":"reasoning.text","text":"Greet","format":"unknown","index":0}]},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`,
			`: OPENROUTER PROCESSING`,
			`{"id":"gen-1761-abc","provider":"DeepInfra","model":"deepseek/deepseek-r1","object":"chat.completion.chunk","created":1761000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":" back.","reasoning_details":[{"type":"reasoning.text","text":" back.","format":"unknown","index":0}]},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`,
			`{"id":"gen-1761-abc","provider":"DeepInfra","model":"deepseek/deepseek-r1","object":"chat.completion.chunk","created":1761000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello!","reasoning":null,"reasoning_details":[]},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`,
			`{"id":"gen-1761-abc","provider":"DeepInfra","model":"deepseek/deepseek-r1","object":"chat.completion.chunk","created":1761000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":null},"finish_reason":"stop","native_finish_reason":"stop","logprobs":null}]}`,
			`{"id":"gen-1761-abc","provider":"DeepInfra","model":"deepseek/deepseek-r1","object":"chat.completion.chunk","created":1761000000,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null,"native_finish_reason":null,"logprobs":null}],"usage":{"prompt_tokens":9,"completion_tokens":21,"total_tokens":30,"cost":0.0000519,"is_byok":false,"prompt_tokens_details":{"cached_tokens":0},"cost_details":{"upstream_inference_cost":null},"completion_tokens_details":{"reasoning_tokens":14}}}`,
			`[DONE]`,
		},
		text: "Hello!", reasoning: "Greet back.",
		usage:  &Usage{PromptTokens: 9, CompletionTokens: 21, TotalTokens: 30, ReasoningTokens: 14},
		finish: "stop",
	},
	{
		name: "zhipu glm: whole call in one chunk, usage with the finish", preset: "zhipu",
		events: []string{
			`{"id":"20251201abc","created":1764547200,"model":"glm-4.5","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"用户"}}]}`,
			`{"id":"20251201abc","created":1764547200,"model":"glm-4.5","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"要查北京天气。"}}]}`,
			`{"id":"20251201abc","created":1764547200,"model":"glm-4.5","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"id":"call_-8063157245893215497","index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"北京\"}"}}]}}]}`,
			`{"id":"20251201abc","created":1764547200,"model":"glm-4.5","choices":[{"index":0,"finish_reason":"tool_calls","delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":180,"completion_tokens":26,"total_tokens":206,"prompt_tokens_details":{"cached_tokens":43}}}`,
			`[DONE]`,
		},
		reasoning: "用户要查北京天气。",
		calls:     []wantCall{{"call_-8063157245893215497", "get_weather", `{"city":"北京"}`}},
		usage:     &Usage{PromptTokens: 180, CompletionTokens: 26, TotalTokens: 206, CachedTokens: 43},
		finish:    "tool_calls",
	},
	{
		name: "ollama: reasoning field, whole call, usage chunk", preset: "ollama",
		events: []string{
			`{"id":"chatcmpl-412","object":"chat.completion.chunk","created":1761000000,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Need the time."},"finish_reason":null}]}`,
			`{"id":"chatcmpl-412","object":"chat.completion.chunk","created":1761000000,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_k3x9q2ab","index":0,"type":"function","function":{"name":"get_time","arguments":"{\"zone\":\"UTC\"}"}}]},"finish_reason":null}]}`,
			`{"id":"chatcmpl-412","object":"chat.completion.chunk","created":1761000000,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]}`,
			`{"id":"chatcmpl-412","object":"chat.completion.chunk","created":1761000000,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":61,"completion_tokens":24,"total_tokens":85}}`,
			`[DONE]`,
		},
		reasoning: "Need the time.",
		calls:     []wantCall{{"call_k3x9q2ab", "get_time", `{"zone":"UTC"}`}},
		usage:     &Usage{PromptTokens: 61, CompletionTokens: 24, TotalTokens: 85},
		finish:    "tool_calls",
	},
	{
		name: "azure: placeholder first chunk, filter results, finish length", preset: PresetCustom,
		events: []string{
			`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"}}}]}`,
			`{"choices":[{"content_filter_results":{},"delta":{"content":"","refusal":null,"role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1761000000,"id":"chatcmpl-AzB","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk","system_fingerprint":"fp_ee1d74bde0"}`,
			`{"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"delta":{"content":"Once upon"},"finish_reason":null,"index":0,"logprobs":null}],"created":1761000000,"id":"chatcmpl-AzB","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk","system_fingerprint":"fp_ee1d74bde0"}`,
			`{"choices":[{"content_filter_results":{},"delta":{},"finish_reason":"length","index":0,"logprobs":null}],"created":1761000000,"id":"chatcmpl-AzB","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk","system_fingerprint":"fp_ee1d74bde0"}`,
			`{"choices":[],"created":1761000000,"id":"chatcmpl-AzB","model":"gpt-4o-2024-11-20","object":"chat.completion.chunk","system_fingerprint":"fp_ee1d74bde0","usage":{"completion_tokens":2,"completion_tokens_details":{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,"rejected_prediction_tokens":0},"prompt_tokens":11,"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":0},"total_tokens":13}}`,
			`[DONE]`,
		},
		text:   "Once upon",
		usage:  &Usage{PromptTokens: 11, CompletionTokens: 2, TotalTokens: 13},
		finish: "length",
	},
	{
		name: "usage in every chunk, choices [] mid-stream, chat.completion.done", preset: "siliconflow",
		events: []string{
			`{"id":"0199a","object":"chat.completion.chunk","created":1761000000,"model":"Qwen/Qwen2.5-72B-Instruct","choices":[{"index":0,"delta":{"content":"","reasoning_content":null,"role":"assistant"},"finish_reason":null}],"system_fingerprint":"","usage":{"prompt_tokens":14,"completion_tokens":0,"total_tokens":14}}`,
			`{"id":"0199a","object":"chat.completion.chunk","created":1761000000,"model":"Qwen/Qwen2.5-72B-Instruct","choices":[],"system_fingerprint":"","usage":{"prompt_tokens":14,"completion_tokens":0,"total_tokens":14}}`,
			`{"id":"0199a","object":"chat.completion.chunk","created":1761000000,"model":"Qwen/Qwen2.5-72B-Instruct","choices":[{"index":0,"delta":{"content":"","reasoning_content":null,"tool_calls":[{"index":0,"id":"019a6c3e","type":"function","function":{"name":"kb_search","arguments":""}}]},"finish_reason":null}],"system_fingerprint":"","usage":{"prompt_tokens":14,"completion_tokens":3,"total_tokens":17}}`,
			`{"id":"0199a","object":"chat.completion.chunk","created":1761000000,"model":"Qwen/Qwen2.5-72B-Instruct","choices":[{"index":0,"delta":{"content":"","reasoning_content":null,"tool_calls":[{"index":0,"id":"","type":"function","function":{"name":"","arguments":"{\"q\":\"rust\"}"}}]},"finish_reason":null}],"system_fingerprint":"","usage":{"prompt_tokens":14,"completion_tokens":8,"total_tokens":22}}`,
			`{"id":"0199a","object":"chat.completion.chunk","created":1761000000,"model":"Qwen/Qwen2.5-72B-Instruct","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"finish_reason":"tool_calls"}],"system_fingerprint":"","usage":{"prompt_tokens":14,"completion_tokens":9,"total_tokens":23}}`,
			`{"id":"0199a","object":"chat.completion.done","created":1761000000,"model":"Qwen/Qwen2.5-72B-Instruct","choices":[],"usage":{"prompt_tokens":14,"completion_tokens":9,"total_tokens":23}}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"019a6c3e", "kb_search", `{"q":"rust"}`}},
		usage:  &Usage{PromptTokens: 14, CompletionTokens: 9, TotalTokens: 23},
		finish: "tool_calls",
	},
	{
		name: "openai: parallel calls by index", preset: "openai",
		events: []string{
			`{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1761000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_Vx1","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"aB3"}`,
			`{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1761000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Oslo\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x"}`,
			`{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1761000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_Vx2","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"y"}`,
			`{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1761000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\": \"Rome\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"z"}`,
			`{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1761000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null,"obfuscation":"q"}`,
			`{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1761000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[],"usage":{"prompt_tokens":80,"completion_tokens":36,"total_tokens":116,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"w"}`,
			`[DONE]`,
		},
		calls:  []wantCall{{"call_Vx1", "get_weather", `{"city":"Oslo"}`}, {"call_Vx2", "get_weather", `{"city":"Rome"}`}},
		usage:  &Usage{PromptTokens: 80, CompletionTokens: 36, TotalTokens: 116},
		finish: "tool_calls",
	},
}

func TestRecordedShapes(t *testing.T) {
	for _, sh := range recordedShapes {
		t.Run(sh.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(llmtest.Reply{Raw: sh.events}, llmtest.Reply{Text: "ok"})
			hc := NewHTTPClient()
			t.Cleanup(hc.CloseIdleConnections)
			dialect := DialectFor(sh.preset, "")
			c := NewClient(hc, "p", srv.URL, "k", DefaultRetry, WithDialect(dialect))
			col := newCollector()
			res, err := c.Stream(context.Background(), userReq("m"), col.handler())
			if err != nil {
				t.Fatalf("stream: %v (text %q)", err, res.Text)
			}
			checkResult(t, sh, res, col)
			followUp(t, c, srv, dialect, res)
		})
	}
}

func checkResult(t *testing.T, sh shape, res Result, col *collector) {
	t.Helper()
	if res.Text != sh.text || col.text.String() != sh.text {
		t.Errorf("text = %q (handler %q), want %q", res.Text, col.text.String(), sh.text)
	}
	if res.Reasoning != sh.reasoning || col.reasoning.String() != sh.reasoning {
		t.Errorf("reasoning = %q (handler %q), want %q", res.Reasoning, col.reasoning.String(), sh.reasoning)
	}
	if res.FinishReason != sh.finish {
		t.Errorf("finish = %q, want %q", res.FinishReason, sh.finish)
	}
	if !reflect.DeepEqual(res.Usage, sh.usage) {
		t.Errorf("usage = %+v, want %+v", res.Usage, sh.usage)
	}
	if len(res.ToolCalls) != len(sh.calls) {
		t.Fatalf("calls = %+v, want %d", res.ToolCalls, len(sh.calls))
	}
	for i, w := range sh.calls {
		got := res.ToolCalls[i]
		if got.ID != w.ID || got.Name != w.Name || !sameJSON(got.Arguments, w.Args) {
			t.Errorf("call %d = %+v, want %+v", i, got, w)
		}
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// followUp sends the answer back as the next request's history and checks that its
// reasoning goes back exactly where the dialect needs it: DeepSeek's assistant messages
// with tool calls carry reasoning_content (empty included), nothing else does.
func followUp(t *testing.T, c *Client, srv *llmtest.Server, d Dialect, res Result) {
	t.Helper()
	msgs := []Message{{Role: RoleUser, Content: "q"}, {Role: RoleAssistant, Content: res.Text, ToolCalls: res.ToolCalls, Reasoning: res.Reasoning}}
	for _, tc := range res.ToolCalls {
		msgs = append(msgs, Message{Role: RoleTool, ToolCallID: tc.ID, Content: "done"})
	}
	if len(res.ToolCalls) == 0 {
		msgs = append(msgs, Message{Role: RoleUser, Content: "and then?"})
	}
	if _, err := c.Stream(context.Background(), Request{Model: "m", Messages: msgs}, Handler{}); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	reqs := srv.Requests()
	sent := reqs[len(reqs)-1]
	var raw struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(sent.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	wantBack := d.ReasoningBack == ReasoningBackToolCalls && len(res.ToolCalls) > 0
	for i, m := range raw.Messages {
		rc, has := m["reasoning_content"]
		if i != 1 {
			if has {
				t.Errorf("message %d carries reasoning_content %s", i, rc)
			}
			continue
		}
		if has != wantBack {
			t.Fatalf("assistant message: reasoning_content present = %v, want %v (%s)", has, wantBack, sent.Raw)
		}
		if has {
			var got string
			if err := json.Unmarshal(rc, &got); err != nil || got != res.Reasoning {
				t.Errorf("reasoning_content = %s, want %q", rc, res.Reasoning)
			}
		}
	}
	if strings.Contains(string(sent.Raw), `"reasoning"`) {
		t.Errorf("follow-up carries a reasoning field it never should: %s", sent.Raw)
	}
}
