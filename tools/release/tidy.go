package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// tidyAll runs go mod tidy -diff on every module of the tree as its users
// would resolve it: without go.work, its siblings from a proxy of the
// working tree's release. Each module is copied (its release files) to a
// scratch directory with the siblings' lines taken out of its go.sum, since
// those hash the last release's zips, not the working tree's; the diff may
// add them back, and every other difference fails.
//
// With write, it runs go mod tidy instead and copies go.mod and go.sum
// back into the tree: the way to tidy a module whose siblings are not
// published at versions.txt's versions (go mod tidy in the module itself
// would ask the public proxy for them). dirs, if any, limit it to those
// module directories.
func tidyAll(root string, write bool, dirs []string) error {
	start := time.Now()
	tmp, err := os.MkdirTemp("", "release-tidy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	r, err := buildProxy(root, filepath.Join(tmp, "proxy"))
	if err != nil {
		return err
	}
	env, err := isolatedEnv(tmp, filepath.Join(tmp, "proxy"))
	if err != nil {
		return err
	}
	var failed []string
	n := 0
	for _, m := range r.tree.mods {
		if len(dirs) > 0 && !slices.Contains(dirs, m.dir) {
			continue
		}
		n++
		dst := filepath.Join(tmp, "src", filepath.FromSlash(m.dir))
		if err := copyModule(r, m, dst); err != nil {
			return err
		}
		if write {
			if _, err := runIn(dst, env, "go", "mod", "tidy"); err != nil {
				return err
			}
			for _, f := range []string{"go.mod", "go.sum"} {
				data, err := os.ReadFile(filepath.Join(dst, f))
				if err != nil {
					return err
				}
				if old, _ := os.ReadFile(r.tree.abs(m.dir, f)); string(old) != string(data) {
					if err := os.WriteFile(r.tree.abs(m.dir, f), data, 0o644); err != nil {
						return err
					}
					fmt.Printf("release tidy -w: %s/%s\n", m.dir, f)
				}
			}
			continue
		}
		out, err := runIn(dst, env, "go", "mod", "tidy", "-diff")
		rest := unexpectedDiff(out)
		switch {
		case err != nil && out == "":
			return err
		case rest != "":
			failed = append(failed, m.dir)
			fmt.Fprintf(os.Stderr, "release tidy: %s is not tidy (run go mod tidy there against a proxy, see RELEASING.md):\n%s\n", m.dir, rest)
		default:
			fmt.Printf("release tidy: %s ok\n", m.dir)
		}
	}
	if len(dirs) > n {
		return fmt.Errorf("tidy: %d of %q are not module directories of the tree", len(dirs)-n, dirs)
	}
	fmt.Printf("release tidy: %d modules in %v\n", n, time.Since(start).Round(time.Second))
	if len(failed) > 0 {
		return fmt.Errorf("tidy: not tidy: %s", strings.Join(failed, ", "))
	}
	return nil
}

// copyModule copies m's release files to dst, its go.sum without sibling
// lines.
func copyModule(r *release, m *mod, dst string) error {
	for _, f := range r.files[m.dir] {
		data, err := os.ReadFile(r.tree.abs(m.dir, f))
		if err != nil {
			return err
		}
		if f == "go.sum" {
			data = mergeSum(data, nil)
		}
		name := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// siblingSumLine is a go.sum line of a module of this repository in a
// unified diff.
var siblingSumLine = regexp.MustCompile(`^[-+]github\.com/once-go/once(/\S+)? v\S+ h1:\S+$`)

// unexpectedDiff returns the changed lines of go mod tidy -diff's output
// other than go.sum lines of this repository's modules ("" if none).
func unexpectedDiff(diff string) string {
	var rest []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") {
			continue
		}
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !siblingSumLine.MatchString(l) {
			rest = append(rest, l)
		}
	}
	return strings.Join(rest, "\n")
}
