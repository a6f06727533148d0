package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ScenarioModelPrefix selects a scenario by model name in the "auto" scenario:
// model "fake-tools" gets the "tools" scenario.
const ScenarioModelPrefix = "fake-"

// MarkdownAnswer is the "markdown" scenario's reply: a GFM table, code and KaTeX math.
const MarkdownAnswer = "# Cairn test answer\n\nHere is a **table**:\n\n| Tool | Kind |\n| --- | --- |\n| web_search | web |\n| kb_search | kb |\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\nAnd math: $E = mc^2$ and\n\n$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$\n"

// Scenarios maps a name to a stateless reply function: the reply depends only on the
// request, so a browser test can send as many messages as it likes.
func Scenarios() map[string]func(Request) Reply {
	return map[string]func(Request) Reply{
		"echo": func(r Request) Reply {
			return Reply{Text: "You said: " + lastUserText(r.Body), Delay: 5 * time.Millisecond}
		},
		// "system" answers with the request's system messages, for tests of what the
		// prompt says (a toolset's instruction).
		"system": func(r Request) Reply {
			var sys []string
			for _, m := range r.Body.Messages {
				if m.Role == "system" {
					sys = append(sys, m.Content)
				}
			}
			return Reply{Text: strings.Join(sys, "\n\n"), Delay: 5 * time.Millisecond}
		},
		// "params" answers with what the request carried (its system text, sampling
		// parameters, answer length and how many messages besides the system ones), as a
		// JSON code block, so a browser test sees a conversation's settings reach the model.
		"params": paramsScenario,
		// "history" says how many user and assistant turns came before the question, so a
		// test sees which branch of a conversation a request was built from.
		"history": func(r Request) Reply {
			return Reply{Text: fmt.Sprintf("You said: %s (after %d turns)", lastUserText(r.Body), turnsBefore(r.Body)), Delay: 5 * time.Millisecond}
		},
		"markdown": func(r Request) Reply {
			return Reply{Text: MarkdownAnswer, ChunkRunes: 4, Delay: 5 * time.Millisecond}
		},
		"reasoning": func(r Request) Reply {
			return Reply{Reasoning: "The user wants an answer. Let me think step by step.", Text: "The answer is 42.", Delay: 5 * time.Millisecond}
		},
		"tools": toolsScenario,
		// "echo-tool" calls the offered tool whose name contains "echo" (an MCP echo tool,
		// whatever its wire name) with the last user message, then reports the result.
		"echo-tool": echoToolScenario,
		// "call" reads "NAME [JSON]" from the last user message: it calls the offered tool
		// whose name contains NAME (case, "-" and "_" ignored) with JSON (default {}).
		"call": callScenario,
		// "agent" hands the last user message to a general sub-agent named helper
		// (agent_run), which runs the "call" scenario on it, each answer reporting 1000
		// prompt and 200 completion tokens; the parent then answers with what the
		// sub-agent reported. Parent and child are told apart by the child's
		// system prompt (SubAgentMarker).
		"agent": agentScenario,
		// "cite" searches the web for the last user message, then answers citing the
		// results it got by their numbers, as the web toolset's instruction asks.
		"cite": citeScenario,
		// "pager" reads the attached file its instruction names with file_read, page by
		// page (the offset each answer says to go on with), then says how far it read.
		"pager": pagerScenario,
		// "vision" says how many images the last user message carried, and their types.
		"vision": visionScenario,
		"slow": func(r Request) Reply {
			return Reply{Text: strings.Repeat("slow token ", 300), ChunkRunes: 11, Delay: 100 * time.Millisecond}
		},
		"401": func(Request) Reply {
			return Reply{Status: 401, Error: &APIError{Message: "Incorrect API key provided.", Type: "invalid_request_error", Code: "invalid_api_key"}}
		},
		"404": func(r Request) Reply {
			return Reply{Status: 404, Error: &APIError{Message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", r.Body.Model), Type: "invalid_request_error", Code: "model_not_found"}}
		},
		"429": func(Request) Reply {
			return Reply{Status: 429, Header: map[string]string{"Retry-After": "30"}, Error: &APIError{Message: "Rate limit reached for requests", Type: "requests", Code: "rate_limit_exceeded"}}
		},
		"500": func(Request) Reply {
			return Reply{Status: 500, Error: &APIError{Message: "The server had an error while processing your request.", Type: "server_error"}}
		},
		"tokens": func(r Request) Reply {
			// As many 4-byte tokens as the last user message says (default 1000), at full
			// speed: for throughput benchmarks.
			n, err := strconv.Atoi(strings.TrimSpace(lastUserText(r.Body)))
			if err != nil || n <= 0 {
				n = 1000
			}
			return Reply{Text: strings.Repeat("tok ", n), ChunkRunes: 4, Usage: &Usage{PromptTokens: 10, CompletionTokens: n}}
		},
		// "usage" reports a fixed usage with cached and reasoning tokens (UsageReport),
		// so a test knows exactly what the answer cost at a price.
		"usage": func(Request) Reply {
			u := UsageReport()
			return Reply{Text: "Counted.", Delay: 5 * time.Millisecond, Usage: &u}
		},
		// "stream" is "tokens" at a reader's pace: 1 ms between chunks, so an answer of a
		// few thousand tokens streams for seconds and a window sees it grow (the soak
		// benchmark, bench/soak.sh).
		"stream": func(r Request) Reply {
			n, err := strconv.Atoi(strings.TrimSpace(lastUserText(r.Body)))
			if err != nil || n <= 0 {
				n = 2000
			}
			return Reply{Text: strings.Repeat("tok ", n), ChunkRunes: 4, Delay: time.Millisecond, Usage: &Usage{PromptTokens: 10, CompletionTokens: n}}
		},
		"cut": func(Request) Reply {
			return Reply{Text: "This answer will be cut off in the middle of a chunk", ChunkRunes: 5, CutAfter: 6, Delay: 5 * time.Millisecond}
		},
		"malformed": func(Request) Reply {
			return Reply{Text: "This answer turns into garbage", ChunkRunes: 5, MalformedAfter: 4, Delay: 5 * time.Millisecond}
		},
	}
}

// ScenarioNames lists the scenarios, sorted, plus "auto".
func ScenarioNames() []string {
	var out []string
	for k := range Scenarios() {
		out = append(out, k)
	}
	out = append(out, "auto")
	sort.Strings(out)
	return out
}

// Auto picks the scenario from the request's model ("fake-<scenario>"); any other model
// gets a 404 model_not_found, like a real provider.
func Auto(r Request) Reply {
	name, ok := strings.CutPrefix(r.Body.Model, ScenarioModelPrefix)
	if fn, found := Scenarios()[name]; ok && found {
		return fn(r)
	}
	return Scenarios()["404"](r)
}

// UsageReport is what the "usage" scenario reports for every answer.
func UsageReport() Usage {
	return Usage{PromptTokens: 1200, CachedTokens: 1000, CompletionTokens: 300, ReasoningTokens: 100}
}

// UsagePricing is the list price GET /v1/models gives fake-usage, OpenRouter's way: USD 2
// per million input tokens, 0.50 cached, 8 output; UsageReport costs USD 0.0033 at it.
func UsagePricing() map[string]string {
	return map[string]string{"prompt": "0.000002", "completion": "0.000008", "input_cache_read": "0.0000005", "request": "0"}
}

// AutoModels lists a model per scenario for GET /v1/models in the "auto" scenario;
// fake-usage comes with a list price (UsagePricing).
func AutoModels() []Model {
	var out []Model
	for _, n := range ScenarioNames() {
		if n == "auto" {
			continue
		}
		m := Model{ID: ScenarioModelPrefix + n, ContextLength: 32768, SupportedParameters: []string{"tools"}}
		if n == "usage" {
			m.Pricing = UsagePricing()
		}
		out = append(out, m)
	}
	return out
}

// toolsScenario calls the first offered tool with {} and then answers with what it got.
func toolsScenario(r Request) Reply {
	last := r.Body.LastMessage()
	if last.Role == "tool" {
		content := last.Content
		if len(content) > 200 {
			content = content[:200] + "…"
		}
		return Reply{Text: "The tool returned: " + content, Delay: 5 * time.Millisecond}
	}
	if len(r.Body.Tools) == 0 {
		return Reply{Text: "No tools were offered, so I answer directly.", Delay: 5 * time.Millisecond}
	}
	return Reply{ToolCalls: []ToolCall{{Name: r.Body.Tools[0].Function.Name, Arguments: "{}"}}, Delay: 5 * time.Millisecond}
}

// echoToolScenario calls the first offered tool whose name contains "echo" with
// {"message": <last user text>} and then answers with what it got.
func echoToolScenario(r Request) Reply {
	if reply, done := afterTool(r); done {
		return reply
	}
	args, _ := json.Marshal(map[string]string{"message": lastUserText(r.Body)})
	return callMatching(r, "echo", string(args))
}

// callScenario calls the tool the last user message names ("NAME [JSON]") and then
// answers with what it got.
func callScenario(r Request) Reply {
	if reply, done := afterTool(r); done {
		return reply
	}
	name, args, _ := strings.Cut(strings.TrimSpace(lastUserText(r.Body)), " ")
	if args = strings.TrimSpace(args); args == "" {
		args = "{}"
	}
	return callMatching(r, name, args)
}

// SubAgentMarker starts every sub-agent's system prompt (backend/agents keeps it so).
const SubAgentMarker = "You are a sub-agent"

// agentScenario: see Scenarios.
func agentScenario(r Request) Reply {
	for _, m := range r.Body.Messages {
		if m.Role == "system" && strings.Contains(m.Content, SubAgentMarker) {
			rep := callScenario(r)
			rep.Usage = &Usage{PromptTokens: 1000, CompletionTokens: 200} // so a price gives the child a cost
			return rep
		}
	}
	if reply, done := afterTool(r); done {
		return reply
	}
	args, _ := json.Marshal(map[string]string{"description": "delegated call", "prompt": lastUserText(r.Body), "type": "general", "name": "helper"})
	return callMatching(r, "agent_run", string(args))
}

// resultEntry is a numbered entry of web_search's text ("[2] Title" at a line start).
var resultEntry = regexp.MustCompile(`(?m)^\[(\d+)\] `)

// citeScenario calls the web search tool with the last user message as the query; given
// its results, it answers with a sentence per result citing it ([1], then [1, 2] when
// there are two or more), and one citation written as a Markdown link to the first
// result's address.
func citeScenario(r Request) Reply {
	last := r.Body.LastMessage()
	if last.Role != "tool" {
		args, _ := json.Marshal(map[string]string{"query": lastUserText(r.Body)})
		return callMatching(r, "web_search", string(args))
	}
	var nums []string
	for _, m := range resultEntry.FindAllStringSubmatch(last.Content, -1) {
		nums = append(nums, m[1])
	}
	if len(nums) == 0 {
		return Reply{Text: "The search found nothing I could cite.", Delay: 5 * time.Millisecond}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Cairns are piles of stones [%s].", nums[0])
	if len(nums) > 1 {
		fmt.Fprintf(&b, " They mark trails [%s, %s].", nums[0], nums[1])
	}
	if url := firstResultURL(last.Content); url != "" {
		fmt.Fprintf(&b, " Read more: [%s](%s).", nums[0], url)
	}
	return Reply{Text: b.String(), ChunkRunes: 6, Delay: 5 * time.Millisecond}
}

// firstResultURL is the address line under the first numbered entry.
func firstResultURL(content string) string {
	loc := resultEntry.FindStringIndex(content)
	if loc == nil {
		return ""
	}
	lines := strings.SplitN(content[loc[0]:], "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "http") {
		return ""
	}
	return strings.TrimSpace(lines[1])
}

// afterTool answers a request whose last message is a tool result with that result.
func afterTool(r Request) (Reply, bool) {
	last := r.Body.LastMessage()
	if last.Role != "tool" {
		return Reply{}, false
	}
	content := last.Content
	if len(content) > 200 {
		content = content[:200] + "…"
	}
	return Reply{Text: "The tool returned: " + content, Delay: 5 * time.Millisecond}, true
}

// callMatching calls the first offered tool whose normalized name contains the
// normalized want, or says which tools were offered when none does.
func callMatching(r Request, want, args string) Reply {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	for _, name := range r.Body.ToolNames() {
		if want != "" && strings.Contains(norm(name), norm(want)) {
			return Reply{ToolCalls: []ToolCall{{Name: name, Arguments: args}}, Delay: 5 * time.Millisecond}
		}
	}
	return Reply{Text: fmt.Sprintf("No tool matching %q was offered (offered: %s).", want, strings.Join(r.Body.ToolNames(), ", ")), Delay: 5 * time.Millisecond}
}

// turnsBefore counts the user and assistant messages before the last one.
func turnsBefore(b ChatRequest) int {
	n := 0
	for _, m := range b.Messages {
		if m.Role == "user" || m.Role == "assistant" {
			n++
		}
	}
	return max(n-1, 0)
}

func lastUserText(b ChatRequest) string {
	for i := len(b.Messages) - 1; i >= 0; i-- {
		if b.Messages[i].Role == "user" {
			return b.Messages[i].Content
		}
	}
	return ""
}

// listedFile is a file the file toolset's instruction names ("- NAME (type, …").
var listedFile = regexp.MustCompile(`(?m)^- (.+?) \(`)

// goOn is where file_read says to go on; readSpan is its first line's span.
var (
	goOn     = regexp.MustCompile(`call file_read with offset (\d+) to go on`)
	readSpan = regexp.MustCompile(`^(.+): lines [\d,]+-([\d,]+) of ([\d,]+)`)
)

func pagerScenario(r Request) Reply {
	last := r.Body.LastMessage()
	if last.Role != "tool" {
		m := listedFile.FindStringSubmatch(r.Body.Messages[0].Content)
		if m == nil {
			return Reply{Text: "No attached file is listed for file_read.", Delay: 5 * time.Millisecond}
		}
		args, _ := json.Marshal(map[string]any{"file": m[1]})
		return callMatching(r, "file_read", string(args))
	}
	span := readSpan.FindStringSubmatch(last.Content)
	if span == nil {
		return Reply{Text: "file_read answered: " + last.Content, Delay: 5 * time.Millisecond}
	}
	if next := goOn.FindStringSubmatch(last.Content); next != nil {
		offset, _ := strconv.Atoi(next[1])
		args, _ := json.Marshal(map[string]any{"file": span[1], "offset": offset})
		return callMatching(r, "file_read", string(args))
	}
	pages := 0
	for _, m := range r.Body.Messages {
		if m.Role == "tool" {
			pages++
		}
	}
	return Reply{Text: fmt.Sprintf("I read all %s lines of %s in %d pages.", span[3], span[1], pages), Delay: 5 * time.Millisecond}
}

func visionScenario(r Request) Reply {
	for i := len(r.Body.Messages) - 1; i >= 0; i-- {
		m := r.Body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var types []string
		for _, u := range m.ImageURLs() {
			t, _, _ := strings.Cut(strings.TrimPrefix(u, "data:"), ";")
			types = append(types, t)
		}
		return Reply{Text: fmt.Sprintf("I see %d image(s): %s.", len(types), strings.Join(types, ", ")), Delay: 5 * time.Millisecond}
	}
	return Reply{Text: "I see no message.", Delay: 5 * time.Millisecond}
}

// paramsScenario reports the request's parameters as a fenced JSON block.
func paramsScenario(r Request) Reply {
	var sys []string
	n := 0
	for _, m := range r.Body.Messages {
		if m.Role == "system" {
			sys = append(sys, m.Content)
		} else {
			n++
		}
	}
	out, _ := json.Marshal(map[string]any{"system": strings.Join(sys, "\n\n"), "temperature": r.Body.Temperature,
		"top_p": r.Body.TopP, "max_tokens": r.Body.MaxTokens, "messages": n, "model": r.Body.Model})
	return Reply{Text: "```json\n" + string(out) + "\n```\n", Delay: 5 * time.Millisecond}
}
