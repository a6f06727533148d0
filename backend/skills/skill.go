package skills

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Limits of one SKILL.md: a skill's instructions are meant to be read whole by a model.
const (
	maxSkillFile    = 256 << 10
	maxNameLen      = 64
	maxDescription  = 1024
	maxFrontMatter  = 16 << 10
	frontMatterMark = "---"
)

// nameRE is what a skill's name may look like: the agent-skills convention (lowercase,
// digits, hyphens) and the underscores and capitals some published skills use; never
// spaces or markup, since the name goes into the system prompt and the CLI.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Source is where a skill was found.
type Source string

// The sources, in the order a name is looked up: the first skill of a name wins.
const (
	SourceData   Source = "data"   // the data directory's skills/ (imports go here)
	SourceFolder Source = "folder" // a folder the user added (setting skills.folders)
	SourceClaude Source = "claude" // ~/.claude/skills, read-only
	SourceAgents Source = "agents" // ~/.agents/skills, read-only
)

// Skill is one skill folder as discovery found it. A skill whose SKILL.md cannot be read
// has Error set and its folder's name as Name; it is listed but never offered.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Dir         string `json:"dir"`
	Source      Source `json:"source"`
	// Root is the folder of the source it came from.
	Root     string `json:"root"`
	ReadOnly bool   `json:"readOnly"`
	// Enabled is the global switch (on unless the user turned it off).
	Enabled bool `json:"enabled"`
	// ShadowedBy is the folder of an earlier skill of the same name, which is the one used.
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// Error says what is wrong with the skill's SKILL.md (front matter, size, encoding).
	Error string `json:"error,omitempty"`
	body  string
}

// Usable reports whether the skill can be offered and loaded (enabled aside).
func (s Skill) Usable() bool { return s.Error == "" && s.ShadowedBy == "" }

// frontMatter is the part of SKILL.md's YAML Cairn reads; other keys (license,
// allowed-tools, metadata) are allowed and ignored.
type frontMatter struct {
	Name        any `yaml:"name"`
	Description any `yaml:"description"`
}

// readSkill reads the skill in dir. A problem with SKILL.md comes back as the skill's
// Error, not as an error: one broken skill must not hide the others.
func readSkill(dir string, src Source, root string) Skill {
	sk := Skill{Name: filepath.Base(dir), Dir: dir, Source: src, Root: root, ReadOnly: src == SourceClaude || src == SourceAgents}
	name, desc, body, err := parseFile(filepath.Join(dir, FileName))
	if err != nil {
		sk.Error = err.Error()
		return sk
	}
	sk.Name, sk.Description, sk.body = name, desc, body
	return sk
}

// parseFile reads and parses one SKILL.md.
func parseFile(path string) (name, desc, body string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", "", fmt.Errorf("%s cannot be read: %w", FileName, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSkillFile+1))
	if err != nil {
		return "", "", "", fmt.Errorf("%s cannot be read: %w", FileName, err)
	}
	if len(data) > maxSkillFile {
		return "", "", "", fmt.Errorf("%s is larger than %d KiB", FileName, maxSkillFile>>10)
	}
	return Parse(data)
}

// Parse splits a SKILL.md into its front matter's name and description and the body
// (the instructions), saying exactly what is wrong with a bad one.
func Parse(data []byte) (name, desc, body string, err error) {
	if !utf8.Valid(data) {
		return "", "", "", fmt.Errorf("%s is not UTF-8 text", FileName)
	}
	text := strings.TrimPrefix(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\ufeff")
	if !strings.HasPrefix(text, frontMatterMark+"\n") {
		return "", "", "", fmt.Errorf("%s does not start with a front matter block (a line \"---\", the name and description in YAML, another \"---\")", FileName)
	}
	rest := text[len(frontMatterMark)+1:]
	yml, body, closed := "", "", false
	off := 0
	for _, line := range strings.SplitAfter(rest, "\n") {
		if strings.TrimRight(line, " \t\n") == frontMatterMark {
			yml, body, closed = rest[:off], strings.TrimSpace(rest[off+len(line):]), true
			break
		}
		off += len(line)
	}
	if !closed {
		return "", "", "", fmt.Errorf("the front matter of %s is not closed by a line \"---\"", FileName)
	}
	if len(yml) > maxFrontMatter {
		return "", "", "", fmt.Errorf("the front matter of %s is larger than %d KiB", FileName, maxFrontMatter>>10)
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(yml), &fm); err != nil {
		return "", "", "", fmt.Errorf("the front matter of %s is not valid YAML: %s", FileName, yamlReason(err))
	}
	if name, err = field(fm.Name, "name"); err != nil {
		return "", "", "", err
	}
	if desc, err = field(fm.Description, "description"); err != nil {
		return "", "", "", err
	}
	if len(name) > maxNameLen || !nameRE.MatchString(name) {
		return "", "", "", fmt.Errorf("the name %q is not a skill name (letters, digits, '-', '_' or '.', at most %d characters)", name, maxNameLen)
	}
	if utf8.RuneCountInString(desc) > maxDescription {
		return "", "", "", fmt.Errorf("the description is longer than %d characters", maxDescription)
	}
	return name, desc, body, nil
}

// field is a required front matter text.
func field(v any, key string) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", fmt.Errorf("the front matter of %s has no %s", FileName, key)
	case string:
		if s := strings.TrimSpace(t); s != "" {
			return s, nil
		}
		return "", fmt.Errorf("the %s in the front matter of %s is empty", key, FileName)
	default:
		return "", fmt.Errorf("the %s in the front matter of %s is not text", key, FileName)
	}
}

// yamlReason is the parser's message without its package prefix.
func yamlReason(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
