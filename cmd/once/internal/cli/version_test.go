package cli

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/cmd/once/internal/coord"
)

func TestWriteVersion(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/once-go/once/cmd/once", Version: "v0.1.0"},
		Deps: []*debug.Module{
			{Path: "github.com/go-sql-driver/mysql", Version: "v1.10.1"},
			{Path: "github.com/once-go/once", Version: "v0.1.0"},
			{Path: "github.com/once-go/once/lease/etcdlease", Version: ""},
			{Path: "github.com/once-go/once/lease/k8slease", Version: "v0.1.0", Replace: &debug.Module{Path: "../../lease/k8slease"}},
			{Path: "k8s.io/client-go", Version: "v0.34.4"},
		},
	}
	var b bytes.Buffer
	writeVersion(&b, bi)
	want := "github.com/once-go/once/cmd/once v0.1.0\n" +
		"github.com/once-go/once v0.1.0\n" +
		"github.com/once-go/once/lease/etcdlease (devel)\n" +
		"github.com/once-go/once/lease/k8slease v0.1.0 => ../../lease/k8slease\n" +
		"go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if b.String() != want {
		t.Errorf("writeVersion:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestVersion: the binary built in the tree is built from directories,
// so the command and every once module in it are (devel); the root module
// is listed, and the etcd and Kubernetes strategies' modules exactly when
// the build has their drivers.
func TestVersion(t *testing.T) {
	lines := runBin(t, "version").lines()
	if len(lines) < 2 || lines[0] != "github.com/once-go/once/cmd/once (devel)" {
		t.Fatalf("once version = %q, want the first line %q", lines, "github.com/once-go/once/cmd/once (devel)")
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, runtime.Version()+" ") {
		t.Errorf("once version ends with %q, want the Go version %s", last, runtime.Version())
	}
	got := strings.Join(lines, "\n") + "\n"
	for m, want := range map[string]bool{
		"github.com/once-go/once":                 true,
		"github.com/once-go/once/lease/etcdlease": coord.Lookup("etcd") != nil,
		"github.com/once-go/once/lease/k8slease":  coord.Lookup("kubernetes") != nil,
	} {
		if strings.Contains(got, "\n"+m+" ") != want {
			t.Errorf("once version lists %s: %v, want %v:\n%s", m, !want, want, got)
		}
	}
	if r := cli("", "version", "extra"); r.code != exitUsage {
		t.Errorf("once version extra: exit %d, want %d", r.code, exitUsage)
	}
}

// TestNoRootInternalImports: the command imports no internal package of
// the root module (whose internal API is not a published one), so that
// cmd/once at one version builds against the root at the same version
// without depending on anything but its public API.
func TestNoRootInternalImports(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 10 {
		t.Fatalf("walking cmd/once: %d files, %v", len(files), err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/once-go/once/") && !strings.HasPrefix(p, "github.com/once-go/once/cmd/once/") &&
				(strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal")) {
				t.Errorf("%s imports %s, an internal package of another module", name, p)
			}
		}
	}
}
