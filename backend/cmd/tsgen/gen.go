package main

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// prefixes spell a package's name at the front of its types' TypeScript names, so two
// packages' Snapshot never meet; a package not listed is capitalized.
var prefixes = map[string]string{
	"main": "", "llm": "LLM", "mcp": "MCP", "oauth": "OAuth", "logring": "MCPLog", "remoteimage": "Remote", "buildinfo": "Build",
}

// special are types encoding/json does not spell as their Go structure.
var special = map[string]string{
	"time.Time":                "string",
	"time.Duration":            "number",
	"encoding/json.RawMessage": "unknown",
	// Codes are an open list to a window (every one has an i18n key); a union would
	// change with every new code.
	"github.com/cairn-app/cairn/backend/apperr.Code": "string",
}

// reserved are Go parameter names TypeScript does not allow.
var reserved = map[string]bool{"in": true, "new": true, "delete": true, "function": true, "class": true,
	"default": true, "this": true, "typeof": true, "void": true, "with": true, "enum": true, "export": true}

type generator struct {
	docs    *docs
	names   map[*types.TypeName]string // emitted (or queued) named types
	byName  map[string]*types.TypeName // the other way, to catch two types under one name
	queue   []*types.TypeName
	decls   map[string]string // TypeScript name → declaration
	methods []string
	events  []string
	err     error
}

func newGenerator(fset *token.FileSet) *generator {
	return &generator{docs: newDocs(fset), names: map[*types.TypeName]string{},
		byName: map[string]*types.TypeName{}, decls: map[string]string{}}
}

// facade walks App's exported methods and the wireEvents struct, then every named type
// they reach.
func (g *generator) facade(pkg *types.Package) error {
	app, ok := pkg.Scope().Lookup("App").(*types.TypeName)
	if !ok {
		return fmt.Errorf("%s has no type App", pkg.Path())
	}
	mset := types.NewMethodSet(types.NewPointer(app.Type()))
	for i := range mset.Len() {
		fn := mset.At(i).Obj().(*types.Func)
		if fn.Exported() {
			g.method(fn)
		}
	}
	if ev, ok := pkg.Scope().Lookup("wireEvents").(*types.TypeName); ok {
		g.eventList(ev)
	}
	if d, ok := pkg.Scope().Lookup("wireDisplays").(*types.TypeName); ok {
		g.displays(d)
	}
	for len(g.queue) > 0 {
		tn := g.queue[0]
		g.queue = g.queue[1:]
		g.declare(tn)
	}
	return g.err
}

func (g *generator) method(fn *types.Func) {
	sig := fn.Type().(*types.Signature)
	var params []string
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		if isContext(p.Type()) {
			continue // filled in by the transport, never sent
		}
		name := p.Name()
		if reserved[name] || name == "" || name == "_" {
			name = fmt.Sprintf("arg%d", i)
		}
		params = append(params, fmt.Sprintf("%s: %s", name, g.ts(p.Type())))
	}
	result := "void"
	if r := sig.Results(); r.Len() > 0 && !isError(r.At(0).Type()) {
		result = g.ts(r.At(0).Type())
	}
	doc := g.docs.comment(fn.Pos(), "  ")
	g.methods = append(g.methods, fmt.Sprintf("%s  %s(%s): Promise<%s>;\n", doc, fn.Name(), strings.Join(params, ", "), result))
}

func (g *generator) eventList(ev *types.TypeName) {
	st, ok := ev.Type().Underlying().(*types.Struct)
	if !ok {
		g.fail(fmt.Errorf("wireEvents is not a struct"))
		return
	}
	for i := range st.NumFields() {
		name := reflect.StructTag(st.Tag(i)).Get("event")
		if name == "" {
			g.fail(fmt.Errorf("wireEvents.%s has no event tag", st.Field(i).Name()))
			continue
		}
		doc := g.docs.comment(st.Field(i).Pos(), "  ")
		ts := strings.ReplaceAll(g.ts(st.Field(i).Type()), "\n", "\n  ")
		g.events = append(g.events, fmt.Sprintf("%s  %q: %s;\n", doc, name, ts))
	}
}

// displays declares the types of the wireDisplays fields: tool displays the window lays
// out, which no method's signature names (a tool part carries them as raw JSON).
func (g *generator) displays(d *types.TypeName) {
	st, ok := d.Type().Underlying().(*types.Struct)
	if !ok {
		g.fail(fmt.Errorf("wireDisplays is not a struct"))
		return
	}
	for i := range st.NumFields() {
		g.ts(st.Field(i).Type())
	}
}

func (g *generator) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// ts is the TypeScript spelling of t as a value encoding/json writes.
func (g *generator) ts(t types.Type) string {
	switch t := t.(type) {
	case *types.Alias:
		return g.ts(types.Unalias(t))
	case *types.Named:
		return g.named(t)
	case *types.Basic:
		return basic(t)
	case *types.Pointer:
		return g.ts(t.Elem()) + " | null"
	case *types.Slice:
		if b, ok := t.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			return "string" // base64
		}
		return array(g.ts(elem(t.Elem())))
	case *types.Array:
		return array(g.ts(elem(t.Elem())))
	case *types.Map:
		return fmt.Sprintf("Record<string, %s>", g.ts(elem(t.Elem())))
	case *types.Struct:
		return "{\n" + g.fields(t, "  ") + "}"
	case *types.Interface:
		return "unknown"
	}
	g.fail(fmt.Errorf("no TypeScript for %s", t))
	return "unknown"
}

func (g *generator) named(t *types.Named) string {
	obj := t.Obj()
	if obj.Pkg() == nil {
		return "unknown" // error
	}
	full := obj.Pkg().Path() + "." + obj.Name()
	if s, ok := special[full]; ok {
		return s
	}
	if implements(t, "MarshalText") {
		return "string"
	}
	if implements(t, "MarshalJSON") {
		return "unknown"
	}
	if t.TypeArgs().Len() > 0 {
		g.fail(fmt.Errorf("generic type %s on the wire", full))
		return "unknown"
	}
	if name, ok := g.names[obj]; ok {
		return name
	}
	name := tsName(obj)
	if other, ok := g.byName[name]; ok {
		g.fail(fmt.Errorf("%s and %s.%s both become %s: add a prefix", full, other.Pkg().Path(), other.Name(), name))
	}
	g.names[obj], g.byName[name] = name, obj
	g.queue = append(g.queue, obj)
	return name
}

func tsName(obj *types.TypeName) string {
	pkg := obj.Pkg().Name()
	prefix, ok := prefixes[pkg]
	if !ok {
		prefix = strings.ToUpper(pkg[:1]) + pkg[1:]
	}
	if strings.HasPrefix(obj.Name(), prefix) {
		return obj.Name()
	}
	return prefix + obj.Name()
}

// declare writes a named type's declaration: an interface for a struct, a union of its
// constants for a string or number type that has some, an alias otherwise.
func (g *generator) declare(obj *types.TypeName) {
	name := g.names[obj]
	doc := g.docs.comment(obj.Pos(), "")
	switch u := obj.Type().Underlying().(type) {
	case *types.Struct:
		g.decls[name] = fmt.Sprintf("%sexport interface %s {\n%s}\n", doc, name, g.fields(u, "  "))
	case *types.Basic:
		if lits := constants(obj); len(lits) > 0 {
			g.decls[name] = fmt.Sprintf("%sexport type %s = %s;\n", doc, name, strings.Join(lits, " | "))
			return
		}
		g.decls[name] = fmt.Sprintf("%sexport type %s = %s;\n", doc, name, basic(u))
	default:
		g.decls[name] = fmt.Sprintf("%sexport type %s = %s;\n", doc, name, g.ts(u))
	}
}

// fields lists a struct's JSON members; an embedded struct without a name of its own
// lends its fields, as encoding/json does.
func (g *generator) fields(st *types.Struct, indent string) string {
	var b strings.Builder
	for i := range st.NumFields() {
		f := st.Field(i)
		name, opts, skip := jsonName(f, st.Tag(i))
		if skip {
			continue
		}
		if f.Embedded() && name == "" {
			if inner, ok := embeddedStruct(f.Type()); ok {
				b.WriteString(g.fields(inner, indent))
				continue
			}
		}
		if name == "" {
			name = f.Name()
		}
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		typ := f.Type()
		if p, ok := typ.(*types.Pointer); ok && optional {
			typ = p.Elem()
		}
		ts := g.ts(typ)
		if strings.Contains(opts, "string") {
			ts = "string"
		}
		if strings.Contains(ts, "\n") {
			ts = strings.ReplaceAll(ts, "\n", "\n"+indent)
		}
		q := ""
		if optional {
			q = "?"
		}
		b.WriteString(g.docs.comment(f.Pos(), indent))
		fmt.Fprintf(&b, "%s%s%s: %s;\n", indent, property(name), q, ts)
	}
	return b.String()
}

// jsonName is a field's name and options from its json tag; skip for unexported and
// "-" fields.
func jsonName(f *types.Var, tag string) (name, opts string, skip bool) {
	v, ok := reflect.StructTag(tag).Lookup("json")
	if v == "-" {
		return "", "", true
	}
	if ok {
		name, opts, _ = strings.Cut(v, ",")
	}
	if !f.Exported() && !(f.Embedded() && name == "") {
		return "", "", true
	}
	return name, opts, false
}

func embeddedStruct(t types.Type) (*types.Struct, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}

// constants are the exported constants of a named type, as TypeScript literals in the
// order they are declared.
func constants(obj *types.TypeName) []string {
	scope := obj.Pkg().Scope()
	var cs []*types.Const
	for _, n := range scope.Names() {
		if c, ok := scope.Lookup(n).(*types.Const); ok && c.Exported() && types.Identical(c.Type(), obj.Type()) {
			cs = append(cs, c)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Pos() < cs[j].Pos() })
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		lit := c.Val().ExactString()
		if s, err := strconv.Unquote(lit); err == nil {
			lit = strconv.Quote(s)
		}
		if !seen[lit] {
			seen[lit] = true
			out = append(out, lit)
		}
	}
	return out
}

// elem is a list's or map's element type: a pointer there is taken as never nil (the
// backend does not put nil into a list it sends).
func elem(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func basic(t *types.Basic) string {
	switch {
	case t.Info()&types.IsBoolean != 0:
		return "boolean"
	case t.Info()&types.IsString != 0:
		return "string"
	case t.Info()&types.IsNumeric != 0:
		return "number"
	}
	return "unknown"
}

func array(elem string) string {
	if strings.ContainsAny(elem, "|&") {
		return "(" + elem + ")[]"
	}
	return elem + "[]"
}

func property(name string) string {
	for i, r := range name {
		ok := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return strconv.Quote(name)
		}
	}
	return name
}

func implements(t *types.Named, method string) bool {
	for _, typ := range []types.Type{t, types.NewPointer(t)} {
		ms := types.NewMethodSet(typ)
		for i := range ms.Len() {
			if ms.At(i).Obj().Name() == method {
				return true
			}
		}
	}
	return false
}

func isContext(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isError(t types.Type) bool { return types.Identical(t, types.Universe.Lookup("error").Type()) }

func (g *generator) render() []byte {
	var b strings.Builder
	b.WriteString("// Code generated by backend/cmd/tsgen from the Go types of the facade (app*.go); DO NOT EDIT.\n")
	b.WriteString("// Run `make gen` after changing a facade method, a type it carries or wireEvents.\n")
	b.WriteString("// Go writes a nil slice as null; fields marked ? are left out when empty (omitempty).\n\n")
	b.WriteString("/** Every method of the facade (main.App): its arguments and what its promise resolves to. */\n")
	b.WriteString("export interface Facade {\n")
	for _, m := range g.methods {
		b.WriteString(m)
	}
	b.WriteString("}\n\n/** The payload of every event type (CairnEvent.data). */\nexport interface EventPayloads {\n")
	for _, e := range g.events {
		b.WriteString(e)
	}
	b.WriteString("}\n")
	names := make([]string, 0, len(g.decls))
	for n := range g.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("\n" + g.decls[n])
	}
	return []byte(b.String())
}
