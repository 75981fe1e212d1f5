package main

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnippetImports: every README block shows the imports it needs. A
// block that is a whole file part has its import declaration; a block
// taken from inside a function starts with a comment
//
//	// Imports: "errors", "os", "github.com/once-go/once/migrations".
//
// (continued on comment lines that start with a quote) that lists exactly
// the packages the block refers to, as its file imports them.
func TestSnippetImports(t *testing.T) {
	for _, dir := range regionDirs {
		regions, err := readDirRegions(dir)
		require.NoError(t, err)
		files, err := regionFiles(dir)
		require.NoError(t, err)
		for name, text := range regions {
			if strings.HasPrefix(text, "import ") || strings.Contains(text, "\nimport ") {
				continue
			}
			imports, err := fileImports(files[name])
			require.NoError(t, err)
			used := usedImports(text, imports)
			listed, ok := listedImports(text)
			if !ok {
				assert.Empty(t, used, "%s: region %s shows no imports; start it with // Imports: %s", files[name], name, quoteAll(used))
			} else {
				assert.Equal(t, quoteAll(used), quoteAll(listed), "%s: region %s: the imports it lists, want those it uses", files[name], name)
			}
		}
	}
}

// TestSnippetImportsCheck checks the helpers of TestSnippetImports on a
// small region.
func TestSnippetImportsCheck(t *testing.T) {
	imports := map[string]string{"os": "os", "lease": "github.com/x/lease", "pgxpool": "github.com/jackc/pgx/v5/pgxpool"}
	text := "// Imports: \"os\",\n// \"github.com/x/lease\".\n// lease.Start in a comment, time.Second too\nf := \"lease.json\"\nm, err := lease.Start(os.Getenv(\"X\"), p.Close)"
	assert.Equal(t, []string{"github.com/x/lease", "os"}, usedImports(text, imports), "usedImports")
	got, ok := listedImports(text)
	if assert.True(t, ok, "listedImports found no list") {
		assert.Equal(t, []string{"github.com/x/lease", "os"}, got, "listedImports")
	}
	_, ok = listedImports("x := 1")
	assert.False(t, ok, "listedImports found a list in a region without one")
}

// regionFiles maps each region of dir to the file it is in.
func regionFiles(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if m := beginRe.FindStringSubmatch(line); m != nil {
				out[m[1]] = file
			}
		}
	}
	return out, nil
}

// fileImports maps the package names file refers to to their import paths.
func fileImports(file string) (map[string]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, err
		}
		name := path.Base(p)
		if regexp.MustCompile(`^v[0-9]+$`).MatchString(name) {
			name = path.Base(path.Dir(p))
		}
		if spec.Name != nil {
			name = spec.Name.Name
		}
		out[name] = p
	}
	return out, nil
}

// usedImports returns the import paths of the packages text refers to as
// pkg.Name, sorted; comments and strings do not count.
func usedImports(text string, imports map[string]string) []string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	src := []byte(text)
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, nil, 0)
	seen := map[string]bool{}
	var prev [2]token.Token
	var prevLit string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.IDENT && prev[1] == token.PERIOD && prev[0] == token.IDENT {
			if p, ok := imports[prevLit]; ok {
				seen[p] = true
			}
		}
		if tok == token.IDENT {
			prev, prevLit = [2]token.Token{tok, 0}, lit
			continue
		}
		prev = [2]token.Token{prev[0], tok}
		if tok != token.PERIOD {
			prev = [2]token.Token{}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

var quotedRe = regexp.MustCompile(`"[^"]*"`)

// listedImports returns the import paths listed by text's leading
// "// Imports:" comment, sorted, and whether it has one.
func listedImports(text string) ([]string, bool) {
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "// Imports:") {
		return nil, false
	}
	var out []string
	for i, line := range lines {
		if i > 0 && !strings.HasPrefix(line, `// "`) {
			break
		}
		for _, q := range quotedRe.FindAllString(line, -1) {
			out = append(out, strings.Trim(q, `"`))
		}
	}
	slices.Sort(out)
	return out, true
}

func quoteAll(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = fmt.Sprintf("%q", p)
	}
	return strings.Join(q, ", ")
}
