package elicit

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

const formSchema = `{"type":"object","required":["name","age"],"properties":{
	"note":{"type":"string","maxLength":5},
	"name":{"type":"string","title":"Name","minLength":1},
	"age":{"type":"integer","minimum":0,"maximum":150},
	"ratio":{"type":"number"},
	"ok":{"type":"boolean","default":true},
	"mail":{"type":"string","format":"email"},
	"pet":{"type":"string","enum":["c","d"],"enumNames":["Cat","Dog"]},
	"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"}]},
	"tags":{"type":"array","minItems":1,"items":{"type":"string","enum":["a","b"]}}}}`

func schema(t *testing.T) any {
	var v any
	if err := json.Unmarshal([]byte(formSchema), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFields: required fields come first in `required` order, then the rest by name;
// each property gets its kind, options and bounds.
func TestFields(t *testing.T) {
	fields, err := Fields(schema(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	kinds := map[string]Kind{}
	for _, f := range fields {
		names = append(names, f.Name)
		kinds[f.Name] = f.Kind
	}
	if want := []string{"name", "age", "hero", "mail", "note", "ok", "pet", "ratio", "tags"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}
	want := map[string]Kind{"name": KindString, "age": KindInteger, "ratio": KindNumber, "ok": KindBoolean,
		"pet": KindEnum, "hero": KindEnum, "tags": KindMulti, "mail": KindString, "note": KindString}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds %v", kinds)
	}
	if f := fields[6]; !reflect.DeepEqual(f.Options, []Option{{"c", "Cat"}, {"d", "Dog"}}) {
		t.Errorf("pet options %+v", f.Options)
	}
	if f := fields[2]; !reflect.DeepEqual(f.Options, []Option{{"h1", "Superman"}}) {
		t.Errorf("hero options %+v", f.Options)
	}
	if f := fields[5]; f.Default != true {
		t.Errorf("ok default %v", f.Default)
	}
	if _, err := Fields(map[string]any{"properties": map[string]any{"x": map[string]any{"type": "object"}}}); err == nil {
		t.Error("an object property was accepted")
	}
}

// TestCheck: what an accepted form may send, field by field.
func TestCheck(t *testing.T) {
	fields, err := Fields(schema(t))
	if err != nil {
		t.Fatal(err)
	}
	base := func(extra map[string]any) map[string]any {
		m := map[string]any{"name": "Ada", "age": float64(36)}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		content map[string]any
		reason  string // "" = accepted
		want    map[string]any
	}{
		{"minimal", base(nil), "", map[string]any{"name": "Ada", "age": int64(36)}},
		{"checked twice", map[string]any{"name": "Ada", "age": int64(36)}, "", map[string]any{"name": "Ada", "age": int64(36)}},
		{"unknown fields dropped, empty optional left out", base(map[string]any{"x": 1, "note": ""}), "", map[string]any{"name": "Ada", "age": int64(36)}},
		{"all kinds", base(map[string]any{"ratio": 0.5, "ok": false, "pet": "d", "tags": []any{"a"}, "mail": "a@b.org"}), "",
			map[string]any{"name": "Ada", "age": int64(36), "ratio": 0.5, "ok": false, "pet": "d", "tags": []string{"a"}, "mail": "a@b.org"}},
		{"required missing", map[string]any{"name": "Ada"}, "required", nil},
		{"required empty", base(map[string]any{"name": ""}), "required", nil},
		{"not whole", base(map[string]any{"age": 1.5}), "integer", nil},
		{"out of range", base(map[string]any{"age": float64(200)}), "range", nil},
		{"number as text", base(map[string]any{"ratio": "1"}), "number", nil},
		{"not a choice", base(map[string]any{"pet": "fish"}), "choice", nil},
		{"too few", base(map[string]any{"tags": []any{}}), "count", nil},
		{"too long", base(map[string]any{"note": "abcdef"}), "length", nil},
		{"bad email", base(map[string]any{"mail": "nope"}), "format", nil},
		{"bool as text", base(map[string]any{"ok": "true"}), "boolean", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(fields, tc.content)
			if tc.reason == "" {
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("got %#v, %v; want %#v", got, err, tc.want)
				}
				return
			}
			var ae *apperr.Error
			if !asError(err, &ae) || ae.Code != apperr.ElicitationInvalid || ae.Params["reason"] != tc.reason {
				t.Fatalf("err %v, want reason %s", err, tc.reason)
			}
		})
	}
}

func asError(err error, ae **apperr.Error) bool {
	e, ok := err.(*apperr.Error)
	*ae = e
	return ok
}

// TestBrokerClose: closing the broker answers every waiting server with cancel, and
// an unknown action is refused.
func TestBrokerClose(t *testing.T) {
	bus := events.NewBus()
	b := New(bus, nil)
	sub := bus.Subscribe(8)
	defer sub.Close()
	got := make(chan Answer, 1)
	go func() {
		a, _ := b.Ask(context.Background(), Question{ServerID: "s", Server: "S", Message: "?"})
		got <- a
	}()
	ev := <-sub.C
	var r Request
	if err := json.Unmarshal(ev.Data, &r); err != nil || ev.Type != EventRequested {
		t.Fatalf("%s %v", ev.Type, err)
	}
	if _, err := b.Answer(context.Background(), r.ID, "maybe", nil, "w"); !apperr.Is(err, apperr.ElicitationActionInvalid) {
		t.Fatalf("unknown action: %v", err)
	}
	_ = b.Close()
	select {
	case a := <-got:
		if a.Action != Cancel {
			t.Fatalf("answer %+v", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Ask did not return at Close")
	}
	if a, _ := b.Ask(context.Background(), Question{}); a.Action != Cancel {
		t.Fatalf("after Close: %+v", a)
	}
}
