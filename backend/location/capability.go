// Package location is Cairn's location capability: location_query, which locates the
// user by IP, geocodes addresses, searches places and plans routes and trips, through
// Amap (高德) for mainland China and Google Maps elsewhere, picked by what the call is
// about (Chinese text or a mainland city) unless the call names the region. Amap speaks
// GCJ-02 and every coordinate says its datum; the links to Google Maps are converted to
// WGS-84. Keys live in the keyring; the services' answers are treated as hostile: sizes
// capped, strings cleaned, links built by Cairn.
package location

import (
	"context"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
)

// Name is the toolset and the namespace of its tools.
const Name = "location"

// Capability declares the toolset: its name, label and icon, its Settings page with the
// map services' keys and endpoints, and location_query.
func Capability() capability.Capability {
	return capability.Capability{
		Name:        Name,
		Label:       "chat:tools.namespace.location",
		Icon:        "pin",
		Section:     SettingsSection,
		Instruction: Instruction,
		Secrets:     []string{SecretAmap, SecretGoogle},
		Settings:    Specs(),
		Open:        open,
	}
}

func open(_ context.Context, env capability.Env) (capability.Opened, error) {
	d := Deps{Log: env.Log}
	if env.Settings != nil {
		d.Settings = env.Settings
		d.Language = func(ctx context.Context) string {
			if l := env.Settings.String(ctx, "general.language"); l != "system" {
				return l
			}
			return ""
		}
	}
	if env.Secrets != nil {
		d.Secrets = env.Secrets
	}
	return capability.Opened{Tools: []tools.Entry{Tool(NewService(d))}}, nil
}
