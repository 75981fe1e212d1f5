package apicheck

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
)

// Export is one exported name of a package, as the API budget counts it.
type Export struct {
	// Name is the name as a reader writes it: "Start", "Manager.Close",
	// "Options.Logger".
	Name string
	// Field is true for an exported struct field, false for a top-level
	// func, type, const or var, a method of an exported type or an
	// interface method.
	Field bool
}

func (e Export) String() string {
	if e.Field {
		return e.Name + " (field)"
	}
	return e.Name
}

// Exports lists what the package in dir exports, sorted by name: exported
// top-level funcs, types, consts and vars, the exported methods of exported
// types, the exported methods of exported interfaces, and the exported
// fields of exported struct types (of struct types nested in them too), in
// the non-test files a default build selects (no build tags, this
// machine's GOOS and GOARCH).
func Exports(dir string) ([]Export, error) {
	files, err := defaultBuildFiles(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []Export
	add := func(name string, field bool) { out = append(out, Export{name, field}) }
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					add(d.Name.Name, false)
				} else if recv := receiverType(d.Recv); ast.IsExported(recv) {
					add(recv+"."+d.Name.Name, false)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						add(s.Name.Name, false)
						members(s.Name.Name, s.Type, add)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								add(n.Name, false)
							}
						}
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// members adds the exported fields of a struct type (and of the struct
// types nested in it) and the exported methods of an interface type.
func members(prefix string, t ast.Expr, add func(string, bool)) {
	switch t := t.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			names := f.Names
			if len(names) == 0 { // embedded: named after its type
				if n := typeName(f.Type); n != "" {
					names = []*ast.Ident{ast.NewIdent(n)}
				}
			}
			for _, n := range names {
				if n.IsExported() {
					add(prefix+"."+n.Name, true)
					members(prefix+"."+n.Name, f.Type, add)
				}
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					add(prefix+"."+n.Name, false)
				}
			}
		}
	}
}

// receiverType is the name of a method's receiver type ("Manager" for
// *Manager, "Typed" for Typed[K]).
func receiverType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	return typeName(recv.List[0].Type)
}

// typeName is the name of a named type expression, without pointer,
// package qualifier or type arguments; "" for other expressions.
func typeName(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// defaultBuildFiles returns the paths of the non-test Go files of the
// package in dir that a build without tags selects.
func defaultBuildFiles(dir string) ([]string, error) {
	ctx := build.Default
	ctx.BuildTags = nil
	pkg, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("apicheck: %s: %w", dir, err)
	}
	var paths []string
	for _, name := range append(append([]string{}, pkg.GoFiles...), pkg.CgoFiles...) {
		paths = append(paths, filepath.Join(dir, name))
	}
	return paths, nil
}
