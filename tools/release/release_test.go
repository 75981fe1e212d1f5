package main

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

func TestParseVersions(t *testing.T) {
	vs, err := parseVersions([]byte("# published modules\n" + rootPath + " v0.1.0\n\n" + rootPath + "/cmd/once   v0.1.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []module.Version{{Path: rootPath, Version: "v0.1.0"}, {Path: rootPath + "/cmd/once", Version: "v0.1.0"}}
	if len(vs) != len(want) || vs[0] != want[0] || vs[1] != want[1] {
		t.Fatalf("parseVersions = %v, want %v", vs, want)
	}
	if got := string(formatVersions(vs)); got != rootPath+" v0.1.0\n"+rootPath+"/cmd/once v0.1.0\n" {
		t.Errorf("formatVersions = %q", got)
	}
}

func TestParseVersionsRejects(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "lists no module"},
		{rootPath + "\n", `want "MODULE VERSION"`},
		{rootPath + " v0.1.0 extra\n", `want "MODULE VERSION"`},
		{rootPath + " 0.1.0\n", "not a canonical semantic version"},
		{rootPath + " v0.1\n", "not a canonical semantic version"},
		{rootPath + " v2.0.0\n", "needs a /v2 suffix"},
		{rootPath + " v0.1.0\n" + rootPath + " v0.1.0\n", "listed twice"},
		{rootPath + " v0.1.0\n" + rootPath + "/cmd/once v0.2.0\n", "released together"},
		{"example.com/other v0.1.0\n", "is not " + rootPath},
		{rootPath + "/cmd/once v0.1.0\n", "does not list the root module"},
	} {
		_, err := parseVersions([]byte(c.in))
		if err == nil || !errors.Is(err, errVersions) && !strings.Contains(err.Error(), "version") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseVersions(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

const humaMod = `module github.com/once-go/once/adapters/huma

go 1.26.0

require (
	github.com/danielgtaylor/huma/v2 v2.37.2
	github.com/once-go/once v0.1.0 // the root
)
`

func TestBumpGoMod(t *testing.T) {
	vs := []module.Version{{Path: rootPath, Version: "v0.2.0"}, {Path: rootPath + "/adapters/huma", Version: "v0.2.0"}}
	out, err := bumpGoMod("go.mod", []byte(humaMod), vs)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(humaMod, "once v0.1.0 // the root", "once v0.2.0 // the root", 1)
	if string(out) != want {
		t.Errorf("bumpGoMod:\n%s\nwant:\n%s", out, want)
	}
	// Already there: the data comes back unchanged.
	again, err := bumpGoMod("go.mod", out, vs)
	if err != nil || string(again) != string(out) {
		t.Errorf("bumpGoMod of a bumped file: %v, changed: %v", err, string(again) != string(out))
	}
	// A sibling that is not published is an error.
	if _, err := bumpGoMod("go.mod", []byte(humaMod), vs[1:]); err == nil || !strings.Contains(err.Error(), "not in versions.txt") {
		t.Errorf("bumpGoMod requiring an unlisted sibling: %v", err)
	}
}

// testTree is a tree of go.mod files (directory: content) at versions vs.
func testTree(t *testing.T, versions string, mods map[string]string, work string) *tree {
	t.Helper()
	vs, err := parseVersions([]byte(versions))
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{versions: vs}
	for _, d := range sortedKeys(mods) {
		f, err := modfile.Parse(d+"/go.mod", []byte(mods[d]), nil)
		if err != nil {
			t.Fatal(err)
		}
		tr.mods = append(tr.mods, &mod{dir: d, file: f, data: []byte(mods[d])})
	}
	if work != "" {
		if tr.work, err = modfile.ParseWork("go.work", []byte(work), nil); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

const (
	goodVersions = rootPath + " v0.1.0\n" + rootPath + "/adapters/huma v0.1.0\n"
	rootMod      = "module " + rootPath + "\n\ngo 1.26.0\n"
	exampleMod   = "module " + rootPath + "/examples/huma\n\ngo 1.26.0\n\nrequire (\n\t" + rootPath + " v0.1.0\n\t" + rootPath + "/adapters/huma v0.1.0\n)\n"
	goodWork     = "go 1.26.0\n\nuse (\n\t.\n\t./adapters/huma\n\t./examples/huma\n)\n\nreplace " + rootPath + " v0.1.0 => ./\n\nreplace " + rootPath + "/adapters/huma v0.1.0 => ./adapters/huma\n"
)

func TestCheckAccepts(t *testing.T) {
	tr := testTree(t, goodVersions, map[string]string{".": rootMod, "adapters/huma": humaMod, "examples/huma": exampleMod}, goodWork)
	if probs := tr.check(); len(probs) > 0 {
		t.Errorf("check of a good tree: %q", probs)
	}
}

func TestCheckRejects(t *testing.T) {
	mods := func(edit func(m map[string]string)) map[string]string {
		m := map[string]string{".": rootMod, "adapters/huma": humaMod, "examples/huma": exampleMod}
		edit(m)
		return m
	}
	for _, c := range []struct {
		name     string
		versions string
		mods     map[string]string
		work     string
		want     string
	}{
		{"stale require", goodVersions, mods(func(m map[string]string) {
			m["examples/huma"] = strings.Replace(exampleMod, rootPath+" v0.1.0", rootPath+" v0.0.9", 1)
		}), "", "requires " + rootPath + " v0.0.9; versions.txt has v0.1.0"},
		{"replace in a published module", goodVersions, mods(func(m map[string]string) {
			m["adapters/huma"] = humaMod + "\nreplace " + rootPath + " => ../..\n"
		}), "", "a published module has no replace directive"},
		{"sibling replace in an example", goodVersions, mods(func(m map[string]string) {
			m["examples/huma"] = exampleMod + "\nreplace " + rootPath + " => ../..\n"
		}), "", "siblings come from go.work"},
		{"listed module missing", goodVersions + rootPath + "/lease/etcdlease v0.1.0\n", mods(func(map[string]string) {}), "",
			"versions.txt lists " + rootPath + "/lease/etcdlease, but no go.mod in the tree declares it"},
		{"unlisted module outside examples", goodVersions, mods(func(m map[string]string) {
			m["lease/otellease"] = "module " + rootPath + "/lease/otellease\n\ngo 1.26.0\n"
		}), "", "is not in versions.txt"},
		{"requires an unpublished sibling", goodVersions, mods(func(m map[string]string) {
			m["adapters/huma"] = humaMod + "\nrequire " + rootPath + "/examples/huma v0.1.0\n"
		}), "", "which is not published"},
		{"module path not its directory", goodVersions, mods(func(m map[string]string) {
			m["examples/other"] = "module example.com/other\n\ngo 1.26.0\n"
		}), "", "the path of its directory"},
		{"published module below examples", goodVersions + rootPath + "/examples/huma v0.1.0\n", mods(func(map[string]string) {}), "",
			"never published"},
		{"go.work misses a module", goodVersions, mods(func(map[string]string) {}), strings.Replace(goodWork, "\t./examples/huma\n", "", 1),
			"go.work: does not use module " + rootPath + "/examples/huma"},
		{"go.work uses a stray directory", goodVersions, mods(func(map[string]string) {}), strings.Replace(goodWork, "\t.\n", "\t.\n\t./stray\n", 1),
			"go.work: uses stray"},
		{"go.work lacks a replace", goodVersions, mods(func(map[string]string) {}), strings.Replace(goodWork, "replace "+rootPath+"/adapters/huma v0.1.0 => ./adapters/huma\n", "", 1),
			"go.work: no replace of " + rootPath + "/adapters/huma v0.1.0"},
		{"go.work replaces an old version", goodVersions, mods(func(map[string]string) {}), strings.Replace(goodWork, rootPath+" v0.1.0 => ./", rootPath+" v0.0.9 => ./", 1),
			"go.work: replace " + rootPath + " v0.0.9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			probs := testTree(t, c.versions, c.mods, c.work).check()
			if len(probs) != 1 || !strings.Contains(probs[0], c.want) {
				t.Errorf("check = %q, want one problem containing %q", probs, c.want)
			}
		})
	}
}

func TestOrderAndClosure(t *testing.T) {
	versions := goodVersions + rootPath + "/cmd/once v0.1.0\n" + rootPath + "/lease/etcdlease v0.1.0\n"
	tr := testTree(t, versions, map[string]string{
		".":               rootMod,
		"adapters/huma":   humaMod,
		"cmd/once":        "module " + rootPath + "/cmd/once\n\ngo 1.26.0\n\nrequire " + rootPath + "/lease/etcdlease v0.1.0\n",
		"lease/etcdlease": "module " + rootPath + "/lease/etcdlease\n\ngo 1.26.0\n\nrequire " + rootPath + " v0.1.0\n",
	}, "")
	order, err := tr.order()
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, m := range order {
		pos[m.dir] = i
	}
	if len(order) != 4 || pos["."] > pos["lease/etcdlease"] || pos["lease/etcdlease"] > pos["cmd/once"] || pos["."] > pos["adapters/huma"] {
		t.Errorf("order: %v, want each module after the siblings it requires", pos)
	}
	got := tr.siblingClosure(tr.byPath(rootPath + "/cmd/once"))
	if len(got) != 2 || got[0].Path != rootPath || got[1].Path != rootPath+"/lease/etcdlease" || got[0].Version != "v0.1.0" {
		t.Errorf("siblingClosure(cmd/once) = %v, want the root (through etcdlease) and etcdlease", got)
	}
	tr.mods[0].file.AddRequire(rootPath+"/cmd/once", "v0.1.0") // the root requiring cmd/once: a cycle
	if _, err := tr.order(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("order with a cycle: %v", err)
	}
}

func TestMergeSum(t *testing.T) {
	old := "github.com/a/b v1.0.0 h1:aaa=\ngithub.com/a/b v1.0.0/go.mod h1:bbb=\n" +
		rootPath + " v0.0.9 h1:old=\n" + rootPath + " v0.0.9/go.mod h1:oldmod=\n" +
		"gorm.io/gorm v1.31.2 h1:ccc=\ngorm.io/gorm v1.31.2/go.mod h1:ddd=\n"
	got := string(mergeSum([]byte(old), []string{rootPath + " v0.1.0 h1:new=", rootPath + " v0.1.0/go.mod h1:newmod="}))
	want := "github.com/a/b v1.0.0 h1:aaa=\ngithub.com/a/b v1.0.0/go.mod h1:bbb=\n" +
		rootPath + " v0.1.0 h1:new=\n" + rootPath + " v0.1.0/go.mod h1:newmod=\n" +
		"gorm.io/gorm v1.31.2 h1:ccc=\ngorm.io/gorm v1.31.2/go.mod h1:ddd=\n"
	if got != want {
		t.Errorf("mergeSum:\n%s\nwant:\n%s", got, want)
	}
}

func TestUnexpectedDiff(t *testing.T) {
	diff := "--- a/go.sum\n+++ b/go.sum\n@@ -1,2 +1,4 @@\n gorm.io/gorm v1.31.2 h1:ccc=\n" +
		"+github.com/once-go/once v0.1.0 h1:new=\n+github.com/once-go/once/lease/etcdlease v0.1.0/go.mod h1:x=\n"
	if got := unexpectedDiff(diff); got != "" {
		t.Errorf("unexpectedDiff of sibling go.sum lines = %q, want none", got)
	}
	for _, l := range []string{"+gorm.io/gorm v1.31.3 h1:eee=", "-\tgithub.com/once-go/once v0.1.0", "+github.com/once-go/oncex v0.1.0 h1:x="} {
		if got := unexpectedDiff(diff + l + "\n"); got != l {
			t.Errorf("unexpectedDiff with %q = %q", l, got)
		}
	}
}
