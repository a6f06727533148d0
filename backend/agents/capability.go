// Package agents is Cairn's sub-agents: the agent_run tool starts a child conversation
// with its own context (its own session, linked to the call that started it) through
// the chat agent loop, and returns the child's final answer with a short account of what
// it did. A child never has more than its parent: its tools are its type's within the
// parent's, its calls act in the parent session's context (workspace, knowledge bases,
// permission mode and rules), and it runs under the parent call's context, so the
// parent's Stop ends it and its tools. Budgets (rounds, tokens, wall time) and a cap on
// children at once are settings.
package agents

import (
	"context"
	"fmt"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tasks"
)

// Name is the toolset and the namespace of agent_run.
const Name = "agent"

// Section is the Settings page of the sub-agents.
const Section = "agents"

// The settings: each child's budgets and how many children may run at once.
const (
	SettingMaxRounds   = "agents.maxRounds"
	SettingMaxTokens   = "agents.maxTokens"
	SettingMaxDuration = "agents.maxDuration"
	SettingMaxParallel = "agents.maxParallel"
)

// Instruction tells the parent model when a sub-agent helps.
const Instruction = "agent_run hands a self-contained task to a sub-agent with a fresh context: it sees nothing of this " +
	"conversation but your prompt, so say everything it needs. It answers once, with its result and what it did. Use it " +
	"for research or work whose intermediate steps you do not need to read; run several at once for independent tasks."

func intp(v int) *int { return &v }

// Capability declares the toolset. New sessions do not have it on: a sub-agent spends
// tokens of its own, which the user chooses per conversation.
func Capability() capability.Capability {
	return capability.Capability{
		Name:        Name,
		Label:       "chat:tools.namespace.agent",
		Icon:        "users",
		Section:     Section,
		Instruction: Instruction,
		Settings: []settings.Spec{
			{Key: SettingMaxRounds, Type: settings.Int, Default: 12, Min: intp(1), Max: intp(100), Section: Section},
			{Key: SettingMaxTokens, Type: settings.Int, Default: 200000, Min: intp(1000), Max: intp(10000000), Section: Section},
			{Key: SettingMaxDuration, Type: settings.Duration, Default: "10m", MinDuration: "1s", MaxDuration: "4h", Section: Section},
			{Key: SettingMaxParallel, Type: settings.Int, Default: 3, Min: intp(1), Max: intp(16), Section: Section},
		},
		Open: open,
	}
}

func open(_ context.Context, env capability.Env) (capability.Opened, error) {
	conv, ok := env.Chat.(Conversations)
	if !ok || env.DB == nil {
		return capability.Opened{}, fmt.Errorf("agents: opened without the conversations service")
	}
	bg := func() Background {
		if env.Peer == nil {
			return nil
		}
		b, _ := env.Peer(tasks.Name).(Background)
		return b
	}
	svc := NewService(Config{DB: env.DB.DB, Chat: conv, Settings: env.Settings, Tools: env.Tools, Bus: env.Bus, Log: env.Log, Background: bg})
	return capability.Opened{Tools: svc.Tools(), Value: svc}, nil
}
