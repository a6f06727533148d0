package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// emptyObjectSchema is the input schema of a tool that takes no arguments.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// compileSchema compacts a tool's input schema and resolves it for validation. Lenient
// (MCP) schemas that the validator cannot handle are still accepted, without validation:
// the server validates its own input.
func compileSchema(raw json.RawMessage, lenient bool) (json.RawMessage, *jsonschema.Resolved, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = emptyObjectSchema
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, nil, fmt.Errorf("input schema is not valid JSON: %w", err)
	}
	compact := json.RawMessage(buf.Bytes())
	if compact[0] != '{' {
		return nil, nil, errors.New("input schema must be a JSON object")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(compact, &s); err != nil {
		if lenient {
			return compact, nil, nil
		}
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if !lenient && s.Type != "object" {
		return nil, nil, fmt.Errorf("input schema must have \"type\": \"object\", has %q", s.Type)
	}
	if lenient && !supportedDraft(s.Schema) {
		s.Schema = "" // e.g. draft-04 from an older MCP server: validate as 2020-12
	}
	optionalDefaults(&s)
	rs, err := s.Resolve(nil)
	if err != nil {
		if lenient {
			return compact, nil, nil
		}
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	return compact, rs, nil
}

func supportedDraft(v string) bool {
	switch v {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
		return true
	}
	return false
}

// optionalDefaults drops from every "required" list of s (and of its subschemas) the
// properties that have a default. Schemas generated from zod (`z.string().default("x")`:
// Playwright, Kubernetes, Firecrawl) list such fields as required, yet the server fills
// in a missing one and accepts the call; so do the MCP SDKs' servers (zod's parse in the
// TypeScript SDK, pydantic in Python's, go-sdk's ApplyDefaults before Validate). Cairn's
// check must not refuse a call the server would take. Only the copy used for validation
// changes: the model still reads the schema as the server wrote it.
func optionalDefaults(s *Schema) {
	if s == nil {
		return
	}
	if len(s.Required) > 0 && len(s.Properties) > 0 {
		s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(name string) bool {
			p := s.Properties[name]
			return p != nil && len(p.Default) > 0
		})
	}
	eachSubschema(s, optionalDefaults)
}

// applyDefaults gives every missing property of an object v that has a default in s its
// default, in objects and arrays of objects the arguments hold, as zod's parse does. It
// is not jsonschema-go's Resolved.ApplyDefaults, which skips required properties (the
// very ones zod marks required) and creates absent optional objects to put their
// properties' defaults in, whose required fields then fail a call the server accepts.
func applyDefaults(s *Schema, v any, depth int) {
	if s == nil || depth > 32 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for name, p := range s.Properties {
			if p == nil {
				continue
			}
			val, present := x[name]
			if !present && len(p.Default) > 0 {
				if json.Unmarshal(p.Default, &val) != nil {
					continue // Validate says what is missing
				}
				x[name] = val
			}
			applyDefaults(p, val, depth+1)
		}
	case []any:
		for _, e := range x {
			applyDefaults(s.Items, e, depth+1)
		}
	}
}

// Schema is jsonschema.Schema; the short name keeps the walkers readable.
type Schema = jsonschema.Schema

var (
	schemaPtrType   = reflect.TypeFor[*Schema]()
	schemaSliceType = reflect.TypeFor[[]*Schema]()
	schemaMapType   = reflect.TypeFor[map[string]*Schema]()
)

// eachSubschema calls f on every immediate subschema of s (properties, items, $defs,
// allOf, if/then/else, …): every field of one of the three schema-holding types, so a
// keyword jsonschema-go adds later is walked too.
func eachSubschema(s *Schema, f func(*Schema)) {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		switch fv.Type() {
		case schemaPtrType:
			f(fv.Interface().(*Schema))
		case schemaSliceType:
			for _, c := range fv.Interface().([]*Schema) {
				f(c)
			}
		case schemaMapType:
			for _, c := range fv.Interface().(map[string]*Schema) {
				f(c)
			}
		}
	}
}

// validateArgs checks parsed arguments against a resolved schema the way the MCP SDKs'
// servers do: missing properties that have a default get it (see applyDefaults), then
// the result is validated. It returns a message the model can act on: which field, what
// was expected. v is changed in place; the arguments sent to the tool stay the caller's
// own text, since the server applies its defaults itself.
func validateArgs(rs *jsonschema.Resolved, v any) (msg string, ok bool) {
	if rs == nil {
		return "", true
	}
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = nil // a validator bug must not fail the call; the tool validates too
			}
		}()
		applyDefaults(rs.Schema(), v, 0)
		err = rs.Validate(v)
	}()
	if err == nil {
		return "", true
	}
	return humanizeSchemaError(err.Error()), false
}

// humanizeSchemaError turns jsonschema-go's "validating root: validating /properties/a:
// type: 1 has type "integer", want "string"" into `field "a": expected string, got integer`.
func humanizeSchemaError(s string) string {
	path := ""
	for strings.HasPrefix(s, "validating ") {
		rest := s[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		path = rest[:i]
		s = rest[i+2:]
	}
	field := schemaPathToField(path)
	where := func(f string) string {
		if f == "" {
			return "the arguments"
		}
		return fmt.Sprintf("field %q", f)
	}
	switch {
	case strings.HasPrefix(s, "type: "):
		// type: <value> has type "x", want "y"   |   want one of "a, b"
		if i := strings.LastIndex(s, " has type "); i >= 0 {
			got, want, _ := strings.Cut(s[i+len(" has type "):], ", want ")
			return fmt.Sprintf("%s: expected %s, got %s", where(field), unquote(want), unquote(got))
		}
	case strings.HasPrefix(s, "required: missing properties: "):
		if names := quotedList(strings.TrimPrefix(s, "required: missing properties: ")); len(names) > 0 {
			full := make([]string, len(names))
			for i, n := range names {
				full[i] = fmt.Sprintf("%q", joinField(field, n))
			}
			return "missing required field " + strings.Join(full, ", ")
		}
	case strings.HasPrefix(s, "unexpected additional properties "):
		if names := quotedList(strings.TrimPrefix(s, "unexpected additional properties ")); len(names) > 0 {
			full := make([]string, len(names))
			for i, n := range names {
				full[i] = fmt.Sprintf("%q", joinField(field, n))
			}
			return "unknown field " + strings.Join(full, ", ") + " (not in the tool's schema)"
		}
	case strings.HasPrefix(s, "enum: "):
		if _, allowed, ok := strings.Cut(s, " does not equal any of: "); ok {
			return fmt.Sprintf("%s: must be one of %s", where(field), allowed)
		}
	}
	return fmt.Sprintf("%s: %s", where(field), s)
}

func joinField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// schemaPathToField maps a schema location ("/properties/a/items/properties/b") to the
// argument it constrains ("a[].b"); "root" and unknown keywords map to nothing.
func schemaPathToField(path string) string {
	if path == "" || path == "root" || !strings.HasPrefix(path, "/") {
		return ""
	}
	segs := strings.Split(path[1:], "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "patternProperties", "dependentSchemas":
			if i+1 < len(segs) {
				i++
				name := strings.ReplaceAll(strings.ReplaceAll(segs[i], "~1", "/"), "~0", "~")
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(name)
			}
		case "items", "additionalItems", "unevaluatedItems", "contains":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(segs) {
				i++
				b.WriteString("[" + segs[i] + "]")
			}
		case "anyOf", "oneOf", "allOf", "$defs", "definitions":
			i++ // skip the index or definition name
		}
	}
	return b.String()
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// quotedList parses a Go-quoted string slice as fmt's %q prints it: ["a" "b"].
func quotedList(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil
	}
	s = s[1 : len(s)-1]
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return nil
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return nil
		}
		out = append(out, v)
		s = s[len(q):]
	}
	return out
}
