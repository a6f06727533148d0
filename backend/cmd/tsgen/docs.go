package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// docs finds the doc comment of a declaration from its position: the file is parsed
// once, and a type, field or method is found by the line of its name.
type docs struct {
	fset  *token.FileSet
	files map[string]map[int]string // file → line of a name → its comment
}

func newDocs(fset *token.FileSet) *docs {
	return &docs{fset: fset, files: map[string]map[int]string{}}
}

// comment is the doc comment at pos as a JSDoc block, indented; "" when there is none.
func (d *docs) comment(pos token.Pos, indent string) string {
	if !pos.IsValid() {
		return ""
	}
	p := d.fset.Position(pos)
	text := strings.TrimSpace(d.file(p.Filename)[p.Line])
	if text == "" {
		return ""
	}
	text = strings.ReplaceAll(text, "*/", "*\\/")
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}

func (d *docs) file(name string) map[int]string {
	if m, ok := d.files[name]; ok {
		return m
	}
	m := map[int]string{}
	d.files[name] = m
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
	if err != nil {
		return m // no comments rather than no types
	}
	lineOf := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if len(n.Specs) == 1 && n.Doc != nil {
				if ts, ok := n.Specs[0].(*ast.TypeSpec); ok && ts.Doc == nil {
					m[lineOf(ts.Name)] = n.Doc.Text()
				}
			}
		case *ast.TypeSpec:
			if n.Doc != nil {
				m[lineOf(n.Name)] = n.Doc.Text()
			}
		case *ast.FuncDecl:
			if n.Doc != nil {
				m[lineOf(n.Name)] = n.Doc.Text()
			}
		case *ast.Field:
			if c := fieldDoc(n); c != "" && len(n.Names) > 0 {
				m[lineOf(n.Names[0])] = c
			} else if c != "" {
				m[lineOf(n.Type)] = c
			}
		}
		return true
	})
	return m
}

func fieldDoc(f *ast.Field) string {
	if f.Doc != nil {
		return f.Doc.Text()
	}
	if f.Comment != nil {
		return f.Comment.Text()
	}
	return ""
}
