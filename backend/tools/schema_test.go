package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

const testSchema = `{"type":"object","properties":{
	"query":{"type":"string"},
	"opts":{"type":"object","properties":{"depth":{"type":"integer"}},"required":["depth"]},
	"items":{"type":"array","items":{"type":"object","properties":{"kind":{"enum":["a","b"]}}}},
	"mode":{"type":["string","null"]}
},"required":["query"],"additionalProperties":false}`

func TestValidateArgsSaysWhichFieldAndWhat(t *testing.T) {
	_, rs, err := compileSchema(json.RawMessage(testSchema), false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		want       string // "" = valid
	}{
		{"valid", `{"query":"x","opts":{"depth":2},"items":[{"kind":"a"}]}`, ""},
		{"missing top-level field", `{}`, `missing required field "query"`},
		{"wrong type", `{"query":5}`, `field "query": expected string, got integer`},
		{"missing nested field", `{"query":"x","opts":{}}`, `missing required field "opts.depth"`},
		{"nested wrong type", `{"query":"x","opts":{"depth":1.5}}`, `field "opts.depth": expected integer, got number`},
		{"unknown field", `{"query":"x","qeury":"y"}`, `unknown field "qeury" (not in the tool's schema)`},
		{"enum inside array", `{"query":"x","items":[{"kind":"c"}]}`, `field "items[].kind": must be one of [a b]`},
		{"one of several types", `{"query":"x","mode":3}`, `field "mode": expected one of "string, null", got integer`},
		{"not an object", `[1]`, `the arguments: expected object, got array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.args), &v); err != nil {
				t.Fatal(err)
			}
			msg, ok := validateArgs(rs, v)
			if tt.want == "" {
				if !ok {
					t.Fatalf("rejected valid args: %s", msg)
				}
				return
			}
			if ok || msg != tt.want {
				t.Fatalf("message = %q, want %q", msg, tt.want)
			}
		})
	}
}

func TestValidateArgsListsEveryMissingField(t *testing.T) {
	_, rs, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"a":{},"b":{},"c d":{}},"required":["a","b","c d"]}`), false)
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := validateArgs(rs, map[string]any{"b": 1})
	if want := `missing required field "a", "c d"`; ok || msg != want {
		t.Fatalf("message = %q, want %q", msg, want)
	}
	if got := quotedList(`["x" "y \"z\""]`); len(got) != 2 || got[1] != `y "z"` {
		t.Fatalf("quotedList = %q", got)
	}
	if got := quotedList(`not a list`); got != nil {
		t.Fatalf("quotedList(garbage) = %q", got)
	}
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name      string
		schema    string
		lenient   bool
		wantErr   string
		validates bool
	}{
		{"empty means no arguments", ``, false, "", true},
		{"built-in must be an object schema", `{"type":"string"}`, false, `must have "type": "object"`, false},
		{"not JSON", `{"type":`, false, "not valid JSON", false},
		{"not an object", `[1]`, false, "must be a JSON object", false},
		{"draft-07 is fine", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false, "", true},
		{"MCP draft-04 is validated as 2020-12", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"string"}}}`, true, "", true},
		{"MCP unresolvable ref is accepted without validation", `{"type":"object","properties":{"a":{"$ref":"https://example.com/x.json"}}}`, true, "", false},
		{"MCP schema without type is accepted", `{"properties":{"a":{"type":"string"}}}`, true, "", true},
		{"MCP schema that does not decode is accepted", `{"type":5}`, true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			params, rs, err := compileSchema(json.RawMessage(tt.schema), tt.lenient)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(params) {
				t.Fatalf("params not JSON: %s", params)
			}
			if (rs != nil) != tt.validates {
				t.Fatalf("validator present = %v, want %v", rs != nil, tt.validates)
			}
		})
	}
}

func TestSchemaPathToField(t *testing.T) {
	tests := map[string]string{
		"root":                            "",
		"/properties/a":                   "a",
		"/properties/a/properties/b":      "a.b",
		"/properties/items/items":         "items[]",
		"/properties/a/prefixItems/1":     "a[1]",
		"/properties/a/anyOf/0":           "a",
		"/properties/a~1b":                "a/b",
		"/properties/properties/items":    "properties[]",
		"https://example.com/schema.json": "",
	}
	for in, want := range tests {
		if got := schemaPathToField(in); got != want {
			t.Errorf("schemaPathToField(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValidateArgsAppliesDefaults: fields that are required and have a default (as zod
// writes them: Playwright, Kubernetes, Firecrawl) may be left out, as the servers accept
// such calls; everything else is checked as before, the defaults included.
func TestValidateArgsAppliesDefaults(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"type":{"type":"string","enum":["png","jpeg"],"default":"png"},
		"namespace":{"type":"string","default":"default"},
		"url":{"type":"string"},
		"scrapeOptions":{"type":"object","properties":{
			"formats":{"type":"array","items":{"type":"string"},"default":["markdown"]},
			"onlyMainContent":{"type":"boolean","default":true},
			"waitFor":{"type":"integer"}
		},"required":["formats","onlyMainContent","waitFor"]},
		"actions":{"type":"array","items":{"type":"object","properties":{
			"kind":{"type":"string","default":"wait"},"ms":{"type":"integer"}},"required":["kind","ms"]}},
		"quality":{"type":"integer"}
	},"required":["type","namespace","url"],"additionalProperties":false,
	"if":{"properties":{"type":{"const":"jpeg"}}},"then":{"required":["quality"]}}`
	_, rs, err := compileSchema(json.RawMessage(schema), true)
	if err != nil || rs == nil {
		t.Fatalf("compile: %v (validator %v)", err, rs != nil)
	}
	tests := []struct {
		name, args string
		want       string // "" = valid
	}{
		{"required fields with defaults left out", `{"url":"https://x"}`, ""},
		{"given explicitly", `{"type":"jpeg","quality":80,"namespace":"kube-system","url":"https://x"}`, ""},
		{"required without default still required", `{"type":"png"}`, `missing required field "url"`},
		{"a given value is still checked", `{"type":"gif","url":"https://x"}`, `field "type": must be one of [png jpeg]`},
		{"wrong type of a defaulted field", `{"namespace":3,"url":"https://x"}`, `field "namespace": expected string, got integer`},
		{"nested defaults fill a given object", `{"url":"u","scrapeOptions":{"waitFor":5}}`, ""},
		{"nested required without default", `{"url":"u","scrapeOptions":{}}`, `missing required field "scrapeOptions.waitFor"`},
		{"unknown fields still refused", `{"url":"u","tpye":"png"}`, `unknown field "tpye" (not in the tool's schema)`},
		{"an absent optional object stays absent", `{"url":"u","actions":[]}`, ""},
		{"defaults inside array items", `{"url":"u","actions":[{"ms":5}]}`, ""},
		{"array items still checked", `{"url":"u","actions":[{"kind":"wait"}]}`, `missing required field "actions[].ms"`},
		{"the default takes part in conditions", `{"url":"u"}`, ""},
		{"the condition holds for a given value", `{"url":"u","type":"jpeg"}`, `missing required field "quality"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.args), &v); err != nil {
				t.Fatal(err)
			}
			msg, ok := validateArgs(rs, v)
			if tt.want == "" {
				if !ok {
					t.Fatalf("rejected args the server accepts: %s", msg)
				}
				return
			}
			if ok || msg != tt.want {
				t.Fatalf("message = %q, want %q", msg, tt.want)
			}
		})
	}
	// The schema the model reads is the server's, untouched.
	params, _, _ := compileSchema(json.RawMessage(schema), true)
	if !strings.Contains(string(params), `"required":["type","namespace","url"]`) {
		t.Fatalf("the offered schema changed: %s", params)
	}
}
