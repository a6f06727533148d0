package llmtest

import "net/http"

// DeepSeekReasoningError is DeepSeek's answer, byte for byte, to a thinking-mode request
// whose history has an assistant message with tool calls but no reasoning_content.
const DeepSeekReasoningError = `{"error":{"message":"The ` + "`reasoning_content`" + ` in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`

// MissingReasoning is the index of the first assistant message with tool calls that has
// no reasoning_content field, or -1.
func (r ChatRequest) MissingReasoning() int {
	for i, m := range r.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.ReasoningContent == nil {
			return i
		}
	}
	return -1
}

// DeepSeekThinking wraps a reply function the way DeepSeek's thinking mode checks a
// request: one whose history drops the reasoning of a tool-call message gets the 400
// DeepSeek sends, anything else goes to next.
func DeepSeekThinking(next func(Request) Reply) func(Request) Reply {
	return func(req Request) Reply {
		if req.Body.MissingReasoning() >= 0 {
			return Reply{Status: http.StatusBadRequest, ErrorBody: DeepSeekReasoningError}
		}
		return next(req)
	}
}
