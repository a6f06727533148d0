package agents

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/websearch"
)

// Type is a kind of sub-agent: what it is told and which tools it may use. Tools are wire
// names, "prefix*" patterns, or "*" for every tool of the parent; a child gets only those
// of them its parent has.
type Type struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Instructions string   `json:"instructions"`
	Tools        []string `json:"tools"`
	// ProviderID and Model are the type's model ("" = the parent's).
	ProviderID string `json:"providerId,omitempty"`
	Model      string `json:"model,omitempty"`
	// BuiltIn types are Cairn's own (general, researcher, coder): not editable.
	BuiltIn bool `json:"builtIn"`
	// TaskOnly types work only in task sessions (the sandbox tools are there).
	TaskOnly bool `json:"taskOnly,omitempty"`
}

// The built-in types.
const (
	TypeGeneral    = "general"
	TypeResearcher = "researcher"
	TypeCoder      = "coder"
)

// preamble starts every sub-agent's system prompt.
const preamble = "You are a sub-agent: another assistant gave you one task. You see only that task, not its " +
	"conversation. Work on it with the tools you have, then answer once with the result, complete and self-contained: " +
	"your answer is all the other assistant reads. Nobody can answer questions from you."

// BuiltIns are Cairn's own types, in the order they are listed.
func BuiltIns() []Type {
	return []Type{
		{Name: TypeGeneral, BuiltIn: true, Tools: []string{"*"},
			Description:  "Any task, with the tools of the conversation that starts it.",
			Instructions: "Use whichever of your tools the task needs."},
		{Name: TypeResearcher, BuiltIn: true,
			Tools: []string{websearch.ToolName, webfetch.ToolName, kb.SearchToolName, kb.ListFilesToolName,
				kb.FileMetaToolName, kb.ReadChunksToolName},
			Description:  "Finds things out: web search, reading pages and the knowledge bases; changes nothing.",
			Instructions: "Research the question: search, read the most relevant pages or passages, and answer with what you found, citing each source (its URL or file)."},
		{Name: TypeCoder, BuiltIn: true, TaskOnly: true, Tools: []string{"sandbox_*"},
			Description:  "Reads and changes the task's workspace with the sandbox tools (task sessions only).",
			Instructions: "Work in the task's workspace with the sandbox tools. Read before you edit, keep changes small, run what checks the project has, and end with what you changed and how you checked it."},
	}
}

// allows reports whether a type's tool list takes wire name.
func (t Type) allows(name string) bool {
	for _, p := range t.Tools {
		if p == "*" || p == name || (strings.HasSuffix(p, "*") && strings.HasPrefix(name, strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}

// system is the child's system prompt.
func (t Type) system() string {
	if strings.TrimSpace(t.Instructions) == "" {
		return preamble
	}
	return preamble + "\n\n" + t.Instructions
}

var (
	typeNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	toolRE     = regexp.MustCompile(`^[A-Za-z0-9_:.-]*\*?$`)
)

// checkType says what is wrong with a type the user defines, as agent_type_invalid.
func checkType(t Type) *apperr.Error {
	why := ""
	switch {
	case !typeNameRE.MatchString(t.Name):
		why = "the name must be a lowercase word of letters, digits, - and _ (at most 32)"
	case slices.ContainsFunc(BuiltIns(), func(b Type) bool { return b.Name == t.Name }):
		why = fmt.Sprintf("%q is a built-in type", t.Name)
	case utf8.RuneCountInString(t.Description) > 500:
		why = "the description is longer than 500 characters"
	case utf8.RuneCountInString(t.Instructions) > 20000:
		why = "the instructions are longer than 20000 characters"
	case len(t.Tools) == 0:
		why = "it needs at least one tool (or * for every tool of the conversation)"
	case len(t.Tools) > 200:
		why = "it lists more than 200 tools"
	}
	for _, name := range t.Tools {
		if why == "" && (name == "" || !toolRE.MatchString(name)) {
			why = fmt.Sprintf("%s is not a tool name or a name ending in *", apperr.Quote(name))
		}
	}
	if why == "" {
		return nil
	}
	return apperr.New(apperr.AgentTypeInvalid, "%s", why).WithParam("message", why)
}

// cleanType trims what the user typed: tool names one per entry, empty ones dropped.
func cleanType(t Type) Type {
	t.Name = strings.TrimSpace(t.Name)
	t.Description = strings.TrimSpace(t.Description)
	t.ProviderID, t.Model = strings.TrimSpace(t.ProviderID), strings.TrimSpace(t.Model)
	tools := []string{}
	for _, n := range t.Tools {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(tools, n) {
			tools = append(tools, n)
		}
	}
	t.Tools, t.BuiltIn, t.TaskOnly = tools, false, false
	return t
}

// ListTypes are the built-in types, then the user's by name.
func (s *Service) ListTypes(ctx context.Context) ([]Type, error) {
	out := BuiltIns()
	rows, err := s.db.QueryContext(ctx, "SELECT name, description, instructions, tools, provider_id, model FROM agent_types ORDER BY name")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list sub-agent types")
	}
	defer rows.Close()
	for rows.Next() {
		var t Type
		var tools string
		if err := rows.Scan(&t.Name, &t.Description, &t.Instructions, &tools, &t.ProviderID, &t.Model); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "list sub-agent types")
		}
		_ = json.Unmarshal([]byte(tools), &t.Tools)
		out = append(out, t)
	}
	return out, rows.Err()
}

// typeNamed finds a type by name.
func (s *Service) typeNamed(ctx context.Context, name string) (Type, error) {
	all, err := s.ListTypes(ctx)
	if err != nil {
		return Type{}, err
	}
	names := make([]string, 0, len(all))
	for _, t := range all {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return Type{}, apperr.New(apperr.AgentTypeUnknown, "there is no sub-agent type %q (known: %s)", name, strings.Join(names, ", ")).
		WithParam("type", name).WithParam("known", strings.Join(names, ", "))
}

// SaveType stores a type the user defines (a new one, or a change of one by its name).
func (s *Service) SaveType(ctx context.Context, in Type) (Type, error) {
	t := cleanType(in)
	if err := checkType(t); err != nil {
		return Type{}, err
	}
	tools, _ := json.Marshal(t.Tools)
	now := time.Now().UnixMilli()
	_, err := s.db.ExecContext(ctx, `INSERT INTO agent_types(name, description, instructions, tools, provider_id, model, created_at, updated_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET description = excluded.description,
		instructions = excluded.instructions, tools = excluded.tools, provider_id = excluded.provider_id,
		model = excluded.model, updated_at = excluded.updated_at`,
		t.Name, t.Description, t.Instructions, string(tools), t.ProviderID, t.Model, now, now)
	if err != nil {
		return Type{}, apperr.Wrap(err, apperr.Internal, "save the sub-agent type")
	}
	s.publishTypes()
	return t, nil
}

// DeleteType removes a type the user defined; children it ran stay as history.
func (s *Service) DeleteType(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, "DELETE FROM agent_types WHERE name = ?", name)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete the sub-agent type")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		_, err := s.typeNamed(ctx, name)
		if err == nil {
			why := fmt.Sprintf("%q is a built-in type", name)
			return apperr.New(apperr.AgentTypeInvalid, "%s", why).WithParam("message", why)
		}
		return err
	}
	s.publishTypes()
	return nil
}

var errNoRows = sql.ErrNoRows

func isNoRows(err error) bool { return errors.Is(err, errNoRows) }
