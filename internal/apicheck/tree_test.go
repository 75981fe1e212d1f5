package apicheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleDocs: the doc comments of the root module's public packages
// (once, nonce, oncesql, migrations, the adapters, lease and the
// strategies, and the example programs) name no unexported code and no
// file, which a pkg.go.dev reader could not follow.
func TestModuleDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs, err := PublicPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		seen[filepath.ToSlash(rel)] = true
		findings, err := Docs(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			t.Errorf("%s: %s", rel, f)
		}
	}
	for _, want := range []string{"once", "nonce", "oncesql", "lease", "lease/driver", "migrations", "adapters/gorm"} {
		if !seen[want] {
			t.Errorf("package %s not checked (checked: %s)", want, strings.Join(dirs, " "))
		}
	}
}
