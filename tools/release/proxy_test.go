package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeRepo makes a git repository of files (slash paths: content).
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	root := t.TempDir()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func zipNames(t *testing.T, name string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	return files
}

// TestProxy builds the proxy of a small repository (the root and a nested
// module requiring it) and checks it as the go command sees it: the
// hashes the go command computes of the downloaded zips are the ones the
// release wrote into the dependent's go.sum; the nested module's zip has
// the repository's LICENSE and none of the root's files, the root's none
// of the nested module's.
func TestProxy(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"versions.txt":        rootPath + " v0.1.0\n" + rootPath + "/lease/x v0.1.0\n",
		"go.mod":              "module " + rootPath + "\n\ngo 1.26.0\n",
		"LICENSE":             "the license\n",
		"once.go":             "package once\n",
		"lease/x/go.mod":      "module " + rootPath + "/lease/x\n\ngo 1.26.0\n\nrequire " + rootPath + " v0.1.0\n",
		"lease/x/go.sum":      rootPath + " v0.0.9 h1:stale=\n",
		"lease/x/x.go":        "package x\n\nimport _ \"" + rootPath + "\"\n",
		"examples/e/go.mod":   "module " + rootPath + "/examples/e\n\ngo 1.26.0\n\nrequire " + rootPath + "/lease/x v0.1.0\n",
		"examples/e/main.go":  "package main\n\nimport _ \"" + rootPath + "/lease/x\"\n\nfunc main() {}\n",
		"lease/x/testdata/ok": "data\n",
	})
	dir := t.TempDir()
	r, err := buildProxy(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	x := zipNames(t, filepath.Join(dir, "github.com/once-go/once/lease/x/@v/v0.1.0.zip"))
	pre := rootPath + "/lease/x@v0.1.0/"
	if x[pre+"LICENSE"] != "the license\n" {
		t.Errorf("lease/x zip: LICENSE %q, want the repository's", x[pre+"LICENSE"])
	}
	wantSum := rootPath + " v0.1.0 " + r.zipSum[rootPath] + "\n" + rootPath + " v0.1.0/go.mod " + r.modSum[rootPath] + "\n"
	if x[pre+"go.sum"] != wantSum {
		t.Errorf("lease/x zip: go.sum %q, want %q", x[pre+"go.sum"], wantSum)
	}
	rz := zipNames(t, filepath.Join(dir, "github.com/once-go/once/@v/v0.1.0.zip"))
	var names []string
	for n := range rz {
		names = append(names, strings.TrimPrefix(n, rootPath+"@v0.1.0/"))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"LICENSE", "go.mod", "once.go", "versions.txt"}) {
		t.Errorf("root zip holds %q, want the root's files only", names)
	}

	// The go command's own hashes of what it downloads.
	home := t.TempDir()
	env, err := isolatedEnv(home, dir)
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "GOPROXY=file://"+filepath.ToSlash(dir), "GOFLAGS=-modcacherw", "GOSUMDB=off")
	out, err := runIn(home, env, "go", "mod", "download", "-json", rootPath+"@v0.1.0", rootPath+"/lease/x@v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var m struct{ Path, Sum, GoModSum, Error string }
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if m.Error != "" || m.Sum != r.zipSum[m.Path] || m.GoModSum != r.modSum[m.Path] {
			t.Errorf("go mod download %s: sum %s, go.mod %s, error %q; the release has %s, %s", m.Path, m.Sum, m.GoModSum, m.Error, r.zipSum[m.Path], r.modSum[m.Path])
		}
	}

	// sums writes the same lines into the tree, for the unpublished module
	// too (through lease/x), and drops the stale one.
	if err := writeSums(root); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "lease/x/go.sum"))
	if string(b) != wantSum {
		t.Errorf("lease/x/go.sum after sums: %q, want %q", b, wantSum)
	}
	b, _ = os.ReadFile(filepath.Join(root, "examples/e/go.sum"))
	if !strings.Contains(string(b), rootPath+" v0.1.0 "+r.zipSum[rootPath]) || !strings.Contains(string(b), rootPath+"/lease/x v0.1.0 ") {
		t.Errorf("examples/e/go.sum after sums: %q, want the root's and lease/x's lines", b)
	}
}
