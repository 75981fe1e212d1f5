package apicheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Finding is one place where documentation a pkg.go.dev reader sees names
// code that reader cannot follow.
type Finding struct {
	File string // base name of the file of the comment
	Line int    // line of the comment
	Doc  string // what the comment documents: "package", "Lease", "Lease.ReleaseHold"
	Name string // what it names: "handoffNotBefore", "lane.Lane.Draw", "timing.go"
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: doc of %s names %s", f.File, f.Line, f.Doc, f.Name)
}

// Docs reads the package comment of the package in dir and the doc comments
// of its exported declarations (funcs, methods of exported types, types,
// consts and vars, exported struct fields and interface methods), in its
// non-test files whatever their build tags, and reports every mention of:
//
//   - an unexported identifier the package declares (a func, type, const
//     or var, or a field or method of one of its types), as a whole word
//     (handoffNotBefore, initAt), or qualified (stateFile.clockBound,
//     Options.test). An all-lowercase name (jitter, lost) is also an
//     English word, so alone it is reported only where it reads as code:
//     called (jitter()), or in backquotes or brackets;
//   - a package of an internal directory (the package's imports, and
//     every package under a directory named internal in its module),
//     qualified by its name (lane.Lane.Draw, leasekit.Holder);
//   - a Go file name (timing.go).
//
// Such names lead nowhere on pkg.go.dev; they belong in the repository's
// maintainer documentation.
func Docs(dir string) ([]Finding, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("apicheck: no Go files in %s", dir)
	}
	d := newDeclared(files)
	internal, err := internalPackages(dir)
	if err != nil {
		return nil, err
	}
	for name := range internal {
		d.internal[name] = true
	}
	var out []Finding
	check := func(cg *ast.CommentGroup, doc string, params ...*ast.FuncType) {
		if cg == nil {
			return
		}
		for _, c := range cg.List {
			pos := fset.Position(c.Slash)
			for _, name := range d.violations(c.Text, paramNames(params...)) {
				out = append(out, Finding{File: filepath.Base(pos.Filename), Line: pos.Line, Doc: doc, Name: name})
			}
		}
	}
	for _, f := range files {
		check(f.Doc, "package")
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() {
					continue
				}
				name := decl.Name.Name
				if decl.Recv != nil {
					recv := receiverType(decl.Recv)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				check(decl.Doc, name, decl.Type)
			case *ast.GenDecl:
				groupShown := false
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						groupShown = true
						check(spec.Doc, spec.Name.Name)
						check(spec.Comment, spec.Name.Name)
						checkMembers(spec.Name.Name, spec.Type, check)
					case *ast.ValueSpec:
						exported := false
						for _, n := range spec.Names {
							exported = exported || n.IsExported()
						}
						if !exported {
							continue
						}
						groupShown = true
						check(spec.Doc, spec.Names[0].Name)
						check(spec.Comment, spec.Names[0].Name)
					}
				}
				if groupShown {
					check(decl.Doc, declName(decl))
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// checkMembers checks the docs of the exported fields of a struct type and
// the exported methods of an interface type.
func checkMembers(prefix string, t ast.Expr, check func(*ast.CommentGroup, string, ...*ast.FuncType)) {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, f := range fields.List {
		names := f.Names
		if len(names) == 0 {
			if n := typeName(f.Type); n != "" {
				names = []*ast.Ident{ast.NewIdent(n)}
			}
		}
		for _, n := range names {
			if n.IsExported() {
				ft, _ := f.Type.(*ast.FuncType) // an interface method's parameters
				check(f.Doc, prefix+"."+n.Name, ft)
				check(f.Comment, prefix+"."+n.Name, ft)
				checkMembers(prefix+"."+n.Name, f.Type, check)
				break
			}
		}
	}
}

// declName names a declaration group by its first exported name.
func declName(d *ast.GenDecl) string {
	for _, spec := range d.Specs {
		switch spec := spec.(type) {
		case *ast.TypeSpec:
			if spec.Name.IsExported() {
				return spec.Name.Name
			}
		case *ast.ValueSpec:
			for _, n := range spec.Names {
				if n.IsExported() {
					return n.Name
				}
			}
		}
	}
	return d.Tok.String()
}

// declared is what a package declares that its public docs must not name.
type declared struct {
	unexported map[string]bool            // unexported top-level names
	members    map[string]map[string]bool // type name -> its unexported fields and methods
	memberName map[string]bool            // every unexported field and method name
	internal   map[string]bool            // names of packages imported from internal directories
}

func newDeclared(files []*ast.File) *declared {
	d := &declared{unexported: map[string]bool{}, members: map[string]map[string]bool{}, memberName: map[string]bool{}, internal: map[string]bool{}}
	member := func(typ, name string) {
		if d.members[typ] == nil {
			d.members[typ] = map[string]bool{}
		}
		d.members[typ][name] = true
		d.memberName[name] = true
	}
	for _, f := range files {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains("/"+path+"/", "/internal/") {
				continue
			}
			name := filepath.Base(path)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			d.internal[name] = true
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Name.IsExported() {
					continue
				}
				if decl.Recv != nil {
					member(receiverType(decl.Recv), decl.Name.Name)
				} else {
					d.unexported[decl.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							d.unexported[spec.Name.Name] = true
						}
						var fields *ast.FieldList
						switch t := spec.Type.(type) {
						case *ast.StructType:
							fields = t.Fields
						case *ast.InterfaceType:
							fields = t.Methods
						}
						if fields == nil {
							continue
						}
						for _, fl := range fields.List {
							for _, n := range fl.Names {
								if !n.IsExported() {
									member(spec.Name.Name, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if !n.IsExported() && n.Name != "_" {
								d.unexported[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return d
}

var (
	// word is an identifier, possibly qualified (a.b.c).
	word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)
	// goFile is a Go file name: name.go, not followed by more of a name
	// (pkg.go.dev is a host, not a file).
	goFile = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.-]*\.go(?:[^A-Za-z0-9_.]|\.(?:[^A-Za-z0-9_]|$)|$)`)
)

// paramNames returns the names of the parameters and results of fts,
// which a doc comment names freely.
func paramNames(fts ...*ast.FuncType) map[string]bool {
	names := map[string]bool{}
	for _, ft := range fts {
		if ft == nil {
			continue
		}
		for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
			if fl == nil {
				continue
			}
			for _, f := range fl.List {
				for _, n := range f.Names {
					names[n.Name] = true
				}
			}
		}
	}
	return names
}

// violations returns what the comment text names that a reader cannot
// follow; params are names the comment may use (the parameters of the
// function it documents).
func (d *declared) violations(text string, params map[string]bool) []string {
	var out []string
	for _, loc := range goFile.FindAllStringIndex(text, -1) {
		name := strings.TrimRight(text[loc[0]:loc[1]], " \t\n.,;:)]`'\"")
		if i := strings.LastIndex(name, ".go"); i >= 0 {
			name = name[:i+3]
		}
		out = append(out, name)
	}
	for _, loc := range word.FindAllStringIndex(text, -1) {
		w := text[loc[0]:loc[1]]
		if loc[0] > 0 && strings.ContainsRune("/.-", rune(text[loc[0]-1])) {
			continue // part of a path, a host or a longer word
		}
		if strings.HasSuffix(w, ".go") {
			continue // a file name, reported above
		}
		parts := strings.Split(w, ".")
		qualified := len(parts) > 1
		if params[parts[0]] || parts[0] == "_" {
			continue // a parameter, or the blank identifier of an example
		}
		switch {
		case d.unexported[parts[0]]:
			if qualified || codeLike(parts[0]) || inCode(text, loc[0], loc[1]) {
				out = append(out, w)
			}
		case qualified && d.internal[parts[0]]:
			out = append(out, w)
		case qualified && d.members[parts[0]][parts[1]]:
			out = append(out, parts[0]+"."+parts[1])
		case !qualified && d.memberName[w] && (codeLike(w) || inCode(text, loc[0], loc[1])):
			out = append(out, w)
		}
	}
	return out
}

// codeLike reports whether an identifier cannot be an English word:
// mixed case after its first letter, a digit or an underscore.
func codeLike(id string) bool {
	for i, r := range id {
		if r == '_' || unicode.IsDigit(r) || (i > 0 && unicode.IsUpper(r)) {
			return true
		}
	}
	return false
}

// inCode reports whether text[i:j] is called (followed by "("), or
// enclosed in backquotes or brackets.
func inCode(text string, i, j int) bool {
	if j < len(text) && text[j] == '(' {
		return true
	}
	if i > 0 && j < len(text) {
		before, after := text[i-1], text[j]
		return before == '`' && after == '`' || before == '[' && after == ']'
	}
	return false
}

// internalByRoot caches internalPackages by module root.
var internalByRoot sync.Map // string -> map[string]bool

// internalPackages returns the names of the packages under directories
// named internal in the module that holds dir (not in modules nested in
// it).
func internalPackages(dir string) (map[string]bool, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(root) == root {
			return map[string]bool{}, nil // not in a module
		}
		root = filepath.Dir(root)
	}
	if names, ok := internalByRoot.Load(root); ok {
		return names.(map[string]bool), nil
	}
	names := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if path != root {
			if n := e.Name(); n == "testdata" || strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if strings.Contains(filepath.ToSlash(path)+"/", "/internal/") && filepath.Base(path) != "internal" {
			names[filepath.Base(path)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	internalByRoot.Store(root, names)
	return names, nil
}

// PublicPackages returns dir and the directories below it that hold a
// package of the same module a pkg.go.dev reader sees: every directory
// with non-test Go files, but none under a directory named internal or
// testdata, and none in a nested module (a directory with a go.mod).
func PublicPackages(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if path != dir {
			switch name := e.Name(); {
			case name == "internal", name == "testdata", strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"):
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		gos, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		for _, g := range gos {
			if !strings.HasSuffix(g, "_test.go") {
				out = append(out, path)
				break
			}
		}
		return nil
	})
	return out, err
}
