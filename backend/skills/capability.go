// Package skills is Cairn's agent skills capability: folders with a SKILL.md (a name
// and a description in YAML front matter, then instructions) found in the data
// directory, in folders the user adds and, read-only, in other agents' folders. Only
// their names and descriptions go into the system prompt; skill_load reads one whole and
// skill_read_resource its files. Nothing of a skill is ever run by these tools.
package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/settings"
)

// Name is the toolset and the namespace of its tools.
const Name = "skill"

// Section is the capability's Settings page.
const Section = "skills"

func intp(v int) *int { return &v }

// Capability declares the toolset, its Settings page and settings, `cairn skills`, and
// the service its Open starts.
func Capability() capability.Capability {
	return capability.Capability{
		Name:    Name,
		Label:   "chat:tools.namespace.skill",
		Icon:    "sparkle",
		On:      capability.Sessions{Chat: true, Task: true},
		Section: Section,
		Settings: []settings.Spec{
			{Key: SettingFolders, Type: settings.String, Default: "", MaxLen: 8000, Section: Section, Check: checkFolders},
			{Key: SettingOtherAgents, Type: settings.Bool, Default: true, Section: Section},
			{Key: SettingBudget, Type: settings.Int, Default: DefaultBudget, Min: intp(200), Max: intp(50000), Section: Section},
		},
		Commands: []capability.Command{command()},
		Open:     open,
	}
}

// checkFolders refuses a folder line that is not an absolute path: discovery would skip
// it, and the user would not know why.
func checkFolders(v any) *apperr.Error {
	text, _ := v.(string)
	for _, line := range strings.Split(text, "\n") {
		if d := strings.TrimSpace(line); d != "" && !filepath.IsAbs(d) {
			return apperr.New(apperr.SettingInvalid, "%s: %s is not an absolute path", SettingFolders, apperr.Quote(d)).
				WithParam("key", SettingFolders).WithParam("reason", apperr.Quote(d)+" is not an absolute path")
		}
	}
	return nil
}

// OpenEnv starts the skills service on a data directory's services.
func OpenEnv(ctx context.Context, env capability.Env) (*Service, error) {
	home, _ := os.UserHomeDir()
	cfg := Config{DataDir: env.DataDir, Home: home, Bus: env.Bus, Log: env.Log}
	if env.DB != nil {
		cfg.DB = env.DB.DB
	}
	if env.Settings != nil {
		cfg.Settings = env.Settings
	}
	return New(ctx, cfg)
}

func open(ctx context.Context, env capability.Env) (capability.Opened, error) {
	svc, err := OpenEnv(ctx, env)
	if err != nil {
		return capability.Opened{}, err
	}
	return capability.Opened{Tools: svc.Tools(), Value: svc, Close: svc.Close}, nil
}
