package elicit

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Kind is what a field asks for; the dialog and the terminal pick their control by it.
type Kind string

const (
	KindString  Kind = "string"
	KindNumber  Kind = "number"
	KindInteger Kind = "integer"
	KindBoolean Kind = "boolean"
	// KindEnum is one choice of Options.
	KindEnum Kind = "enum"
	// KindMulti is any number of Options (an array of enum strings).
	KindMulti Kind = "multi"
)

// Option is one choice of an enum field: the value sent back and its title for people.
type Option struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// Field is one property of a requested schema, as a form shows it. MCP allows only flat
// objects of primitives (strings, numbers, booleans, enums and arrays of enums), so one
// list of fields is the whole form.
type Field struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Kind        Kind   `json:"kind"`
	Required    bool   `json:"required,omitempty"`
	// Default is the schema's default (a string, number, boolean or list of strings).
	Default any `json:"default,omitempty"`
	// Format of a string: email, uri, date or date-time.
	Format    string   `json:"format,omitempty"`
	Options   []Option `json:"options,omitempty"`
	MinLength *int     `json:"minLength,omitempty"`
	MaxLength *int     `json:"maxLength,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MinItems  *int     `json:"minItems,omitempty"`
	MaxItems  *int     `json:"maxItems,omitempty"`
}

type wireConst struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

type wireProp struct {
	Type        string      `json:"type"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Format      string      `json:"format"`
	Default     any         `json:"default"`
	Enum        []any       `json:"enum"`
	EnumNames   []string    `json:"enumNames"`
	OneOf       []wireConst `json:"oneOf"`
	AnyOf       []wireConst `json:"anyOf"`
	Items       *wireProp   `json:"items"`
	MinLength   *int        `json:"minLength"`
	MaxLength   *int        `json:"maxLength"`
	Minimum     *float64    `json:"minimum"`
	Maximum     *float64    `json:"maximum"`
	MinItems    *int        `json:"minItems"`
	MaxItems    *int        `json:"maxItems"`
}

type wireSchema struct {
	Type       string              `json:"type"`
	Properties map[string]wireProp `json:"properties"`
	Required   []string            `json:"required"`
}

// Fields reads a requested schema (any value that marshals to JSON Schema: go-sdk hands
// a decoded map) into the form's fields. go-sdk decodes the schema into a map, so the
// server's property order is lost: required fields come first in the order `required`
// lists them, then the others by name.
func Fields(schema any) ([]Field, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var ws wireSchema
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	names := make([]string, 0, len(ws.Properties))
	for _, r := range ws.Required {
		if _, ok := ws.Properties[r]; ok && !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	var rest []string
	for n := range ws.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	names = append(names, rest...)
	fields := make([]Field, 0, len(names))
	for _, n := range names {
		f, err := field(n, ws.Properties[n], slices.Contains(ws.Required, n))
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

func field(name string, p wireProp, required bool) (Field, error) {
	f := Field{Name: name, Title: p.Title, Description: p.Description, Required: required, Default: p.Default,
		Format: p.Format, MinLength: p.MinLength, MaxLength: p.MaxLength, Minimum: p.Minimum, Maximum: p.Maximum,
		MinItems: p.MinItems, MaxItems: p.MaxItems}
	switch {
	case p.Type == "array":
		if p.Items == nil {
			return f, fmt.Errorf("requested schema: %s is an array without items", name)
		}
		f.Kind, f.Options = KindMulti, options(*p.Items)
		if len(f.Options) == 0 {
			return f, fmt.Errorf("requested schema: %s is an array of something other than choices", name)
		}
	case len(p.Enum) > 0 || len(p.OneOf) > 0 || len(p.AnyOf) > 0:
		f.Kind, f.Options = KindEnum, options(p)
	case p.Type == "string", p.Type == "":
		f.Kind = KindString
	case p.Type == "number":
		f.Kind = KindNumber
	case p.Type == "integer":
		f.Kind = KindInteger
	case p.Type == "boolean":
		f.Kind = KindBoolean
	default:
		return f, fmt.Errorf("requested schema: %s has type %q, which a form cannot ask for", name, p.Type)
	}
	return f, nil
}

// options are an enum's choices: `enum` (with the legacy `enumNames` as titles), or
// `oneOf` / `anyOf` of titled constants.
func options(p wireProp) []Option {
	var out []Option
	for i, v := range p.Enum {
		o := Option{Value: fmt.Sprint(v)}
		if i < len(p.EnumNames) {
			o.Title = p.EnumNames[i]
		}
		out = append(out, o)
	}
	for _, c := range append(slices.Clone(p.OneOf), p.AnyOf...) {
		out = append(out, Option{Value: fmt.Sprint(c.Const), Title: c.Title})
	}
	return out
}

// invalid is the error of an answer that does not fit a field: the request stays pending
// and the window shows which field and why.
func invalid(f Field, reason, msg string, args ...any) error {
	return apperr.New(apperr.ElicitationInvalid, "%s: "+msg, append([]any{f.Name}, args...)...).
		WithParam("field", cmpOr(f.Title, f.Name)).WithParam("reason", reason)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Check returns the content to send for an accepted form: only the schema's fields,
// each checked against its field (numbers from JSON arrive as float64). A required
// field that is missing is an error; an optional one left out stays out (the server's
// defaults apply).
func Check(fields []Field, content map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range fields {
		v, ok := content[f.Name]
		if !ok || v == nil || v == "" {
			if f.Required {
				return nil, invalid(f, "required", "required")
			}
			continue
		}
		checked, err := checkValue(f, v)
		if err != nil {
			return nil, err
		}
		out[f.Name] = checked
	}
	return out, nil
}

func checkValue(f Field, v any) (any, error) {
	switch f.Kind {
	case KindBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, invalid(f, "boolean", "not true or false")
		}
		return b, nil
	case KindNumber, KindInteger:
		return checkNumber(f, v)
	case KindEnum:
		s, ok := v.(string)
		if !ok || !slices.ContainsFunc(f.Options, func(o Option) bool { return o.Value == s }) {
			return nil, invalid(f, "choice", "not one of the choices")
		}
		return s, nil
	case KindMulti:
		return checkMulti(f, v)
	default:
		s, ok := v.(string)
		if !ok {
			return nil, invalid(f, "text", "not text")
		}
		return s, checkString(f, s)
	}
}

func checkNumber(f Field, v any) (any, error) {
	var n float64
	ok := true
	switch x := v.(type) {
	case float64:
		n = x
	case int:
		n = float64(x)
	case int64:
		n = float64(x)
	case json.Number:
		var err error
		n, err = x.Float64()
		ok = err == nil
	default:
		ok = false
	}
	if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, invalid(f, "number", "not a number")
	}
	if f.Kind == KindInteger && n != math.Trunc(n) {
		return nil, invalid(f, "integer", "not a whole number")
	}
	if f.Minimum != nil && n < *f.Minimum || f.Maximum != nil && n > *f.Maximum {
		return nil, invalid(f, "range", "out of range")
	}
	if f.Kind == KindInteger {
		return int64(n), nil
	}
	return n, nil
}

func checkMulti(f Field, v any) (any, error) {
	list, ok := v.([]any)
	if !ok {
		if ss, isStrings := v.([]string); isStrings {
			for _, s := range ss {
				list = append(list, s)
			}
			ok = true
		}
	}
	if !ok {
		return nil, invalid(f, "choice", "not a list of choices")
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, isStr := e.(string)
		if !isStr || !slices.ContainsFunc(f.Options, func(o Option) bool { return o.Value == s }) {
			return nil, invalid(f, "choice", "not one of the choices")
		}
		out = append(out, s)
	}
	if f.MinItems != nil && len(out) < *f.MinItems || f.MaxItems != nil && len(out) > *f.MaxItems {
		return nil, invalid(f, "count", "wrong number of choices")
	}
	return out, nil
}

func checkString(f Field, s string) error {
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength || f.MaxLength != nil && n > *f.MaxLength {
		return invalid(f, "length", "wrong length")
	}
	if s == "" {
		return nil
	}
	bad := false
	switch f.Format {
	case "email":
		a, err := mail.ParseAddress(s)
		bad = err != nil || a.Address != s
	case "uri":
		u, err := url.Parse(s)
		bad = err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\n")
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		bad = err != nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		bad = err != nil
	}
	if bad {
		return invalid(f, "format", "not a valid %s", f.Format)
	}
	return nil
}
