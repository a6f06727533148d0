package llm

import "slices"

// reasoningFields are the request fields that carry a reasoning choice in a family's
// dialect, as each provider documents them; nil for the provider's default, for a family
// without controls, or for an effort the family does not offer.
func reasoningFields(family string, r Reasoning) map[string]any {
	ctl := Dialect{Reasoning: family}.Controls()
	if r.Effort != "" && !slices.Contains(ctl.Efforts, r.Effort) {
		r.Effort = ""
	}
	if !ctl.Budget {
		r.Budget = 0
	}
	if r.Effort == "" && r.Budget == 0 {
		return nil
	}
	switch family {
	case ReasoningDeepSeek:
		// thinking {type: enabled|disabled}; reasoning_effort low|high|max.
		if r.Effort == EffortOff {
			return map[string]any{"thinking": map[string]string{"type": "disabled"}}
		}
		return map[string]any{"thinking": map[string]string{"type": "enabled"}, "reasoning_effort": r.Effort}
	case ReasoningZhipu:
		return map[string]any{"thinking": map[string]string{"type": thinkingType(r.Effort)}}
	case ReasoningQwen:
		// enable_thinking true|false; thinking_budget caps the reasoning tokens.
		if r.Effort == EffortOff {
			return map[string]any{"enable_thinking": false}
		}
		out := map[string]any{"enable_thinking": true}
		if r.Budget > 0 {
			out["thinking_budget"] = r.Budget
		}
		return out
	case ReasoningOpenRouter:
		// reasoning {effort} or {max_tokens}, not both; effort "none" turns it off.
		if r.Effort == EffortOff {
			return map[string]any{"reasoning": map[string]any{"effort": "none"}}
		}
		if r.Budget > 0 {
			return map[string]any{"reasoning": map[string]any{"max_tokens": r.Budget}}
		}
		return map[string]any{"reasoning": map[string]any{"effort": r.Effort}}
	case ReasoningOpenAI:
		return map[string]any{"reasoning_effort": r.Effort}
	}
	return nil
}

func thinkingType(effort string) string {
	if effort == EffortOff {
		return "disabled"
	}
	return "enabled"
}
