package main

import (
	"bytes"
	"encoding/base64"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/skills"
)

// skillsService is the skills service the skill capability started.
func (a *App) skillsService() (*skills.Service, error) {
	if s, ok := a.s.Opened(skills.Name).(*skills.Service); ok && s != nil {
		return s, nil
	}
	return nil, apperr.New(apperr.Internal, "skills are not available")
}

// ListSkills lists every skill found, with where it came from, its switch and its error.
func (a *App) ListSkills() ([]skills.Skill, error) {
	s, err := a.skillsService()
	if err != nil {
		return nil, err
	}
	s.Rescan(a.ctx)
	return s.List(a.ctx)
}

// SetSkillEnabled switches a skill on or off for every conversation without a choice of
// its own.
func (a *App) SetSkillEnabled(name string, enabled bool) (skills.Skill, error) {
	s, err := a.skillsService()
	if err != nil {
		return skills.Skill{}, err
	}
	return s.SetEnabled(a.ctx, name, enabled)
}

// ImportSkillPath copies a skill folder or a .zip on this computer into the data
// directory's skills.
func (a *App) ImportSkillPath(path string) (skills.Skill, error) {
	s, err := a.skillsService()
	if err != nil {
		return skills.Skill{}, err
	}
	return s.ImportFolder(a.ctx, path)
}

// ImportSkillZip imports a zip the window read (a picker or a drop), in base64.
func (a *App) ImportSkillZip(name, dataBase64 string) (skills.Skill, error) {
	s, err := a.skillsService()
	if err != nil {
		return skills.Skill{}, err
	}
	data, err := base64.StdEncoding.DecodeString(dataBase64)
	if err != nil {
		return skills.Skill{}, apperr.Wrap(err, apperr.SkillImportInvalid, "upload %s", name).WithParam("name", name).WithParam("reason", "it could not be read from the window")
	}
	return s.ImportZip(a.ctx, name, bytes.NewReader(data), int64(len(data)))
}

// GetSessionSkills are the usable skills as a conversation has them.
func (a *App) GetSessionSkills(sessionID string) ([]skills.SessionSkill, error) {
	s, err := a.skillsService()
	if err != nil {
		return nil, err
	}
	return s.SessionSkills(a.ctx, sessionID)
}

// SetSessionSkill sets a conversation's own choice for a skill: "on", "off" or "default".
func (a *App) SetSessionSkill(sessionID, name, state string) ([]skills.SessionSkill, error) {
	s, err := a.skillsService()
	if err != nil {
		return nil, err
	}
	return s.SetSessionSkill(a.ctx, sessionID, name, state)
}
