// Package sandbox is Cairn's task mode: seven tools (sandbox_bash, sandbox_read,
// sandbox_write, sandbox_edit, sandbox_grep, sandbox_ls, sandbox_find) that work in a
// task session's workspace inside an operating system sandbox. The file tools' work is
// done by package ops inside the sandbox too, so the main process never opens a file on
// the model's behalf.
package sandbox

import (
	"context"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/settings"
)

// Name is the toolset and the namespace of its tools.
const Name = "sandbox"

// SettingsSection is the sandbox's Settings page.
const SettingsSection = "sandbox"

// SettingUnsandboxed lets the tools run without a sandbox where none works; every call
// then asks, and the approval dialog says it runs unsandboxed.
const SettingUnsandboxed = "sandbox.unsandboxed"

// Instruction tells the model how the task tools work.
const Instruction = "You are working in a task session: the sandbox_* tools act in the session's workspace folder, " +
	"inside a sandbox (no network, nothing outside the workspace). Give paths relative to the workspace. Read a file " +
	"before you edit it; use sandbox_edit for changes and sandbox_write for new files. Writes and commands may wait for " +
	"the user's approval."

// Capability declares the toolset: task sessions have it on; its Settings page holds the
// sandbox's status and the unsandboxed switch.
func Capability() capability.Capability {
	return CapabilityWith(nil)
}

// CapabilityWith is the capability whose tools run on engine (nil: the machine's sandbox,
// or Local when there is none).
func CapabilityWith(engine Engine) capability.Capability {
	return capability.Capability{
		Name:        Name,
		Label:       "chat:tools.namespace.sandbox",
		Icon:        "terminal",
		On:          capability.Sessions{Task: true},
		Commands:    Commands(),
		Section:     SettingsSection,
		Instruction: Instruction,
		Settings: []settings.Spec{
			{Key: SettingUnsandboxed, Type: settings.Bool, Default: false, Section: SettingsSection},
		},
		Open: func(_ context.Context, env capability.Env) (capability.Opened, error) {
			e := engine
			if e == nil {
				e = defaultEngine(env)
			}
			var st Settings
			if env.Settings != nil {
				st = env.Settings
			}
			svc := NewService(e, NewWorkspaces(env.DB.DB, env.DataDir), st, peerBackground{peer: env.Peer})
			return capability.Opened{Tools: svc.Tools(), Value: svc}, nil
		},
	}
}
