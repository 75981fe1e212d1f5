package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// bump sets every published module to version v: versions.txt and every
// go.mod's require of a sibling.
func bump(root, v string) error {
	if err := checkVersion(v); err != nil {
		return err
	}
	t, err := loadTree(root)
	if err != nil {
		return err
	}
	for i := range t.versions {
		t.versions[i].Version = v
	}
	changed := 0
	for _, m := range t.mods {
		out, err := bumpGoMod(m.dir+"/go.mod", m.data, t.versions)
		if err != nil {
			return err
		}
		if string(out) != string(m.data) {
			if err := os.WriteFile(t.abs(m.dir, "go.mod"), out, 0o644); err != nil {
				return err
			}
			changed++
		}
	}
	if err := os.WriteFile(filepath.Join(root, "versions.txt"), formatVersions(t.versions), 0o644); err != nil {
		return err
	}
	fmt.Printf("release bump: versions.txt and %d go.mod files at %s; next: bash .ci/gowork, then RELEASING.md's steps\n", changed, v)
	return nil
}

// bumpGoMod returns go.mod data with every require of a module in vs set
// to its version there; a require of any other sibling is an error.
func bumpGoMod(name string, data []byte, vs []module.Version) ([]byte, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	want := map[string]string{}
	for _, v := range vs {
		want[v.Path] = v.Version
	}
	touched := false
	for _, r := range f.Require {
		if !isSibling(r.Mod.Path) {
			continue
		}
		v, ok := want[r.Mod.Path]
		if !ok {
			return nil, fmt.Errorf("%s: requires %s, which is not in versions.txt", name, r.Mod.Path)
		}
		if r.Mod.Version != v {
			if err := f.AddRequire(r.Mod.Path, v); err != nil {
				return nil, err
			}
			touched = true
		}
	}
	if !touched {
		return data, nil
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}
