package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadmeInstalls: the dry run installs the CLI as the README's go
// install lines say: the default install first, then the one with the
// etcd and Kubernetes drivers; a README without the default line is an
// error.
func TestReadmeInstalls(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	got, err := readmeInstalls(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != 0 || !slices.Equal(got[1], []string{"-tags", "etcd,kubernetes"}) {
		t.Errorf("README.md installs the CLI with %q, want no flags, then -tags etcd,kubernetes", got)
	}
	bad := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(bad, []byte("go install -tags etcd "+rootPath+"/cmd/once@v0.1.0\n"), 0o644)
	if _, err := readmeInstalls(bad); err == nil {
		t.Error("a README whose only install line has flags passed")
	}
}
