package main

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// check lists every disagreement between versions.txt, the go.mod files
// and go.work (when there is one).
func (t *tree) check() []string {
	var probs []string
	add := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	for _, v := range t.versions {
		m := t.byPath(v.Path)
		if m == nil {
			add("versions.txt lists %s, but no go.mod in the tree declares it (expected in %s/go.mod)", v.Path, dirOf(v.Path))
			continue
		}
		if m.dir != dirOf(v.Path) {
			add("%s is declared in %s/go.mod, not in %s as its path says", v.Path, m.dir, dirOf(v.Path))
		}
		if isUnpublishedDir(m.dir) {
			add("versions.txt lists %s, but %s/ holds modules that are never published (%s)", v.Path, m.dir, strings.Join(unpublished, ", "))
		}
	}
	for _, m := range t.mods {
		p := m.path()
		where := m.dir + "/go.mod"
		if !isSibling(p) || dirOf(p) != m.dir {
			add("%s: module %s; want %s, the path of its directory", where, p, path.Join(rootPath, m.dir))
		}
		_, pub := t.published(p)
		if !pub && !isUnpublishedDir(m.dir) {
			add("%s: module %s is not in versions.txt; list it there (published) or move it below %s/ (unpublished)", where, p, strings.Join(unpublished, "/, "))
		}
		for _, r := range m.file.Require {
			if !isSibling(r.Mod.Path) {
				continue
			}
			v, ok := t.published(r.Mod.Path)
			switch {
			case !ok:
				add("%s: requires %s, which is not published (not in versions.txt)", where, r.Mod.Path)
			case r.Mod.Version != v:
				add("%s: requires %s %s; versions.txt has %s (run: go -C tools run ./release bump %s)", where, r.Mod.Path, r.Mod.Version, v, v)
			}
		}
		for _, r := range m.file.Replace {
			switch {
			case pub:
				add("%s: replace %s: a published module has no replace directive (its users would not see it; the tree builds through go.work)", where, r.Old.Path)
			case isSibling(r.Old.Path):
				add("%s: replace %s: siblings come from go.work in the tree (.ci/gowork), not from replace directives", where, r.Old.Path)
			}
		}
	}
	if t.work != nil {
		probs = append(probs, t.checkWork()...)
	}
	return probs
}

// checkWork compares go.work with the tree: it uses every module and
// nothing else, and replaces each published module's version by its
// directory (what .ci/gowork writes).
func (t *tree) checkWork() []string {
	var probs []string
	add := func(format string, args ...any) {
		probs = append(probs, "go.work: "+fmt.Sprintf(format, args...)+" (rewrite it with .ci/gowork)")
	}
	used := map[string]bool{}
	for _, u := range t.work.Use {
		used[path.Clean(strings.TrimPrefix(u.Path, "./"))] = true
	}
	have := map[string]bool{}
	for _, m := range t.mods {
		have[m.dir] = true
		if !used[m.dir] {
			add("does not use module %s (%s)", m.path(), m.dir)
		}
	}
	for _, u := range sortedKeys(used) {
		if !have[u] {
			add("uses %s, which holds no module of the tree", u)
		}
	}
	repl := map[string]*modfile.Replace{}
	for _, r := range t.work.Replace {
		repl[r.Old.Path] = r
	}
	for _, v := range t.versions {
		r := repl[v.Path]
		delete(repl, v.Path)
		switch {
		case r == nil:
			add("no replace of %s %s by its directory", v.Path, v.Version)
		case r.Old.Version != v.Version || path.Clean(strings.TrimPrefix(r.New.Path, "./")) != dirOf(v.Path) || r.New.Version != "":
			add("replace %s %s => %s; want %s %s => %s", v.Path, r.Old.Version, r.New.Path, v.Path, v.Version, strings.TrimSuffix("./"+dirOf(v.Path), "."))
		}
	}
	for _, p := range sortedKeys(repl) {
		add("replaces %s, which is not in versions.txt", p)
	}
	return probs
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
