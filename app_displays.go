package main

import (
	"github.com/cairn-app/cairn/backend/skills"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/websearch"
)

// wireDisplays names the tool displays the window lays out itself (a tool part carries
// them as raw JSON, so no method names their types), so the TypeScript types generated
// from the facade (backend/cmd/tsgen) cover them too. Nothing uses a value of it.
type wireDisplays struct {
	// web_search's display.
	WebSearch websearch.Answer
	// web_fetch's (parse_link's) display.
	WebFetch webfetch.Card
	// skill_load's and skill_read_resource's displays.
	SkillLoaded   skills.Loaded
	SkillResource skills.ResourceRead
}
