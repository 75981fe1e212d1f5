package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// unpublished are the directories (and those below them) whose modules are
// never released: they are built in the tree, through go.work.
var unpublished = []string{"examples", "bench", "tests", "tools"}

// tree is the repository's modules as checked out.
type tree struct {
	root     string
	versions []module.Version // versions.txt
	mods     []*mod           // every go.mod, sorted by directory
	work     *modfile.WorkFile
}

// mod is one module of the tree.
type mod struct {
	dir  string // slash-separated, relative to the root; "." for the root
	file *modfile.File
	data []byte // go.mod as read
}

func (m *mod) path() string { return m.file.Module.Mod.Path }

// repoRoot finds the repository root: the directory above the working
// directory whose go.mod is the root module's.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modfile.ModulePath(data) == rootPath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no directory above %s holds the go.mod of %s", dir, rootPath)
		}
	}
}

// loadTree reads versions.txt, every go.mod below root and go.work if
// there is one.
func loadTree(root string) (*tree, error) {
	data, err := os.ReadFile(filepath.Join(root, "versions.txt"))
	if err != nil {
		return nil, err
	}
	t := &tree{root: root}
	if t.versions, err = parseVersions(data); err != nil {
		return nil, err
	}
	dirs, err := moduleDirs(root)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		name := filepath.Join(root, filepath.FromSlash(d), "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			return nil, err
		}
		if f.Module == nil {
			return nil, fmt.Errorf("%s: no module line", name)
		}
		t.mods = append(t.mods, &mod{dir: d, file: f, data: data})
	}
	if data, err := os.ReadFile(filepath.Join(root, "go.work")); err == nil {
		if t.work, err = modfile.ParseWork("go.work", data, nil); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// moduleDirs lists the directories below root holding a go.mod, skipping
// hidden directories, testdata and vendor (as "go work use -r" does).
func moduleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs, err
}

// published returns the version of module p in versions.txt.
func (t *tree) published(p string) (string, bool) {
	for _, v := range t.versions {
		if v.Path == p {
			return v.Version, true
		}
	}
	return "", false
}

// byPath returns the tree's module of path p.
func (t *tree) byPath(p string) *mod {
	for _, m := range t.mods {
		if m.path() == p {
			return m
		}
	}
	return nil
}

// isUnpublishedDir reports whether dir is at or below an unpublished
// directory.
func isUnpublishedDir(dir string) bool {
	for _, u := range unpublished {
		if dir == u || strings.HasPrefix(dir, u+"/") {
			return true
		}
	}
	return false
}

// order returns the published modules, each after the siblings it
// requires (the order their go.sum lines are computed and their tags
// pushed in).
func (t *tree) order() ([]*mod, error) {
	var out []*mod
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(p string) error
	visit = func(p string) error {
		switch state[p] {
		case 1:
			return fmt.Errorf("the published modules require each other in a cycle through %s", p)
		case 2:
			return nil
		}
		m := t.byPath(p)
		if m == nil {
			return fmt.Errorf("versions.txt lists %s, which no go.mod in the tree declares", p)
		}
		state[p] = 1
		for _, r := range m.file.Require {
			if isSibling(r.Mod.Path) {
				if err := visit(r.Mod.Path); err != nil {
					return err
				}
			}
		}
		state[p] = 2
		out = append(out, m)
		return nil
	}
	for _, v := range t.versions {
		if err := visit(v.Path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// siblingClosure returns the sibling modules m requires, directly or
// through other siblings, sorted by path.
func (t *tree) siblingClosure(m *mod) []module.Version {
	seen := map[string]bool{}
	var walk func(m *mod)
	walk = func(m *mod) {
		for _, r := range m.file.Require {
			p := r.Mod.Path
			if !isSibling(p) || seen[p] {
				continue
			}
			seen[p] = true
			if s := t.byPath(p); s != nil {
				walk(s)
			}
		}
	}
	walk(m)
	var out []module.Version
	for p := range seen {
		v, _ := t.published(p)
		out = append(out, module.Version{Path: p, Version: v})
	}
	slices.SortFunc(out, func(a, b module.Version) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// files lists the files of every module a release would publish: those git
// tracks or would track (untracked, not ignored), as in the working tree,
// each under the innermost module directory holding it. Keys are module
// directories, values slash-separated paths relative to the module.
func (t *tree) files() (map[string][]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = t.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	dirs := make([]string, 0, len(t.mods))
	for _, m := range t.mods {
		dirs = append(dirs, m.dir)
	}
	// Innermost first.
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	files := map[string][]string{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(f))); err != nil {
			continue // deleted in the working tree
		}
		for _, d := range dirs {
			if d == "." {
				files[d] = append(files[d], f)
				break
			}
			if strings.HasPrefix(f, d+"/") {
				files[d] = append(files[d], strings.TrimPrefix(f, d+"/"))
				break
			}
		}
	}
	for d := range files {
		slices.Sort(files[d])
	}
	return files, nil
}

// abs is the absolute path of slash-separated rel below the root.
func (t *tree) abs(rel ...string) string {
	return filepath.Join(t.root, filepath.FromSlash(path.Join(rel...)))
}
