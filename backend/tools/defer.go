package tools

import (
	"fmt"
	"strings"
)

// The cost gates of TOOL-4.
const (
	// DeferContextPercent: the auto tools must cost more than this share of the window.
	DeferContextPercent = 10
	// MinAutoDeferCount: fewer auto tools than this are never folded (search-then-call
	// would cost more round trips than it saves).
	MinAutoDeferCount = 5
	// UnknownContextWindow is assumed when the model's window is not known (0): small
	// enough that a local model with an unknown window is not flooded with definitions.
	UnknownContextWindow = 32768
)

// ToolCost is one candidate tool's folding policy and the prompt tokens of its definition.
// Whether the tool needs approval does not matter here: a folded tool is called through
// tool_invoke, which runs it through the same permission step as a direct call.
type ToolCost struct {
	Name   string
	Defer  Defer
	Tokens int
}

// ShouldDefer decides whether the auto tools are folded. All three gates must pass:
//   - their definitions cost more than DeferContextPercent of the context window
//     (UnknownContextWindow when contextWindow <= 0),
//   - there are at least MinAutoDeferCount of them,
//   - the tokens saved exceed what folding adds, metaTokens (the meta tool definitions
//     and the <DEFERRED_TOOLS> section). When always-deferred tools already bring the
//     meta tools in, folding adds nothing and this gate is met by any saving.
func ShouldDefer(costs []ToolCost, contextWindow, metaTokens int) bool {
	if contextWindow <= 0 {
		contextWindow = UnknownContextWindow
	}
	autoTokens, autoCount, always := 0, 0, false
	for _, c := range costs {
		switch c.Defer {
		case DeferAuto:
			autoTokens += c.Tokens
			autoCount++
		case DeferAlways:
			always = true
		}
	}
	overhead := metaTokens
	if always {
		overhead = 0
	}
	return autoCount >= MinAutoDeferCount &&
		autoTokens*100 > contextWindow*DeferContextPercent &&
		autoTokens > overhead
}

// PlanDeferral returns, for each cost, whether it is folded: always-deferred tools
// always, auto tools when ShouldDefer, never-deferred tools never.
func PlanDeferral(costs []ToolCost, contextWindow, metaTokens int) []bool {
	return planDeferral(costs, ShouldDefer(costs, contextWindow, metaTokens))
}

// planDeferral folds the always-deferred tools, and the auto ones when foldAuto.
func planDeferral(costs []ToolCost, foldAuto bool) []bool {
	out := make([]bool, len(costs))
	for i, c := range costs {
		switch c.Defer {
		case DeferAlways:
			out[i] = true
		case DeferAuto:
			out[i] = foldAuto
		}
	}
	return out
}

// deferredNamespace is one line of the <DEFERRED_TOOLS> section.
type deferredNamespace struct {
	Namespace string
	Label     string
	Count     int
}

const deferredIntro = "More tools are available than are listed here, folded to save context. Their namespaces:\n"
const deferredOutro = "Find a tool with tool_search (keywords and/or namespace), read its signature with " +
	"tool_inspect (or tool_search with verbose=true), then call it with tool_invoke. " +
	"A call through tool_invoke is approved exactly like a direct call."

// deferredSection is the instruction that tells the model which namespaces are folded.
func deferredSection(nss []deferredNamespace) string {
	var b strings.Builder
	b.WriteString("<DEFERRED_TOOLS>\n")
	b.WriteString(deferredIntro)
	for _, ns := range nss {
		b.WriteString("- ")
		b.WriteString(ns.Namespace)
		if ns.Label != "" && ns.Label != ns.Namespace {
			b.WriteString(" (")
			b.WriteString(ns.Label)
			b.WriteString(")")
		}
		fmt.Fprintf(&b, ": %d %s\n", ns.Count, plural(ns.Count, "tool", "tools"))
	}
	b.WriteString(deferredOutro)
	b.WriteString("\n</DEFERRED_TOOLS>")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
