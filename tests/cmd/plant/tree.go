package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// repoRoot is the repository around the working directory.
func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in the repository (git rev-parse: %v)", err)
	}
	root := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(root, "tests", "cmd", "plant")); err != nil {
		return "", fmt.Errorf("%s is not the once repository", root)
	}
	return root, nil
}

// copyTree replaces dst by a copy of root's files as git sees them
// (tracked and untracked, not ignored): the working tree, uncommitted
// changes included. dst keeps its path from run to run, so the build cache
// serves every package a bug does not touch.
func copyTree(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v", err)
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	for _, name := range bytes.Split(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		src := filepath.Join(root, string(name))
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := copyFile(src, filepath.Join(dst, string(name)), fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, perm os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, perm)
}

// applyBug plants b in the copy at tree. Every patch's Old must occur
// exactly once in its file.
func applyBug(root, tree string, b Bug) error {
	if len(b.Patch) == 0 {
		return fmt.Errorf("no patch")
	}
	for _, p := range b.Patch {
		name := filepath.Join(tree, filepath.FromSlash(p.File))
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("stale catalogue: %v", err)
		}
		if n := strings.Count(string(data), p.Old); n != 1 {
			return fmt.Errorf("stale catalogue: %s holds the patch's text %d times, want once: %.60q", p.File, n, p.Old)
		}
		if err := os.WriteFile(name, []byte(strings.Replace(string(data), p.Old, p.New, 1)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// restoreBug puts back the files b patched.
func restoreBug(root, tree string, b Bug) error {
	for _, p := range b.Patch {
		src := filepath.Join(root, filepath.FromSlash(p.File))
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		if err := copyFile(src, filepath.Join(tree, filepath.FromSlash(p.File)), fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// rootModule is the import path of the repository's root module.
const rootModule = "github.com/once-go/once"

// fastPath is what .ci/fast tests.
var fastPath = []string{"./once/...", "./nonce/...", "./oncesql/...", "./lease/...", "./adapters/...", "./migrations/..."}

// fastPkgs returns the packages of the fast path whose tests can reach
// b's patches: the patched packages of the root module and every package
// whose tests import them, directly or not. The others' results cannot
// differ from the unpatched tree's. None when every patch is in a module
// of its own (the fast path tests the root module only).
func fastPkgs(tree string, b Bug) ([]string, error) {
	patched := map[string]bool{}
	for _, p := range b.Patch {
		dir := goPackageDir(tree, path.Dir(p.File))
		if dir == "" || inNestedModule(tree, dir) {
			continue
		}
		patched[rootModule+"/"+dir] = true
	}
	if len(patched) == 0 {
		return nil, nil
	}
	cmd := exec.Command("go", append([]string{"list", "-test", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, fastPath...)...)
	cmd.Dir = tree
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(tree, "go.work"))
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var pkgs []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := f[0] // "p", "p [p.test]", "p_test [p.test]" or "p.test"
		reach := patched[pkg]
		for _, d := range f[1:] {
			if d == "[" || strings.HasSuffix(d, ".test]") {
				continue
			}
			reach = reach || patched[d]
		}
		pkg = strings.TrimSuffix(strings.TrimSuffix(pkg, ".test"), "_test")
		if reach && strings.HasPrefix(pkg, rootModule+"/") && !seen[pkg] {
			seen[pkg] = true
			pkgs = append(pkgs, pkg)
		}
	}
	return pkgs, nil
}

// inNestedModule reports whether dir (slash-separated, relative to tree)
// belongs to a module below the root: a go.mod in dir or between it and
// the root.
func inNestedModule(tree, dir string) bool {
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if _, err := os.Stat(filepath.Join(tree, filepath.FromSlash(d), "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// goPackageDir is dir, or for a file a package embeds (a Lua script under
// lease/redislease/scripts) the nearest directory above it that holds Go
// files; "" when there is none.
func goPackageDir(tree, dir string) string {
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if m, _ := filepath.Glob(filepath.Join(tree, filepath.FromSlash(d), "*.go")); len(m) > 0 {
			return d
		}
	}
	return ""
}
