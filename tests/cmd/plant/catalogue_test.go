package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/once-go/once/tests/internal/soakwork"
)

// TestCatalogue: every planted bug still applies to the tree (each patch's
// text occurs exactly once), names are unique, classes and coordinators
// are known, the targeted check names a directory of the tree, and there
// are at least 20 bugs. A change to the code that a bug's text no longer
// matches fails here, on every run, not only when the catalogue runs.
func TestCatalogue(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if len(catalogue) < 20 {
		t.Errorf("the catalogue has %d bugs, want at least 20", len(catalogue))
	}
	seen := map[string]bool{}
	classes := []Class{ClassClaim, ClassRenew, ClassFree, ClassExpiry, ClassHandoff, ClassDeadline, ClassRelease, ClassState, ClassConfig}
	for _, b := range catalogue {
		if b.Name == "" || seen[b.Name] || strings.ContainsAny(b.Name, " ,/") {
			t.Errorf("bug name %q: empty, repeated or holding a space, comma or slash", b.Name)
		}
		seen[b.Name] = true
		if !slices.Contains(classes, b.Class) {
			t.Errorf("%s: class %q unknown", b.Name, b.Class)
		}
		if !slices.Contains(soakwork.Coordinators, b.Coordinator) {
			t.Errorf("%s: soak coordinator %q unknown (%v)", b.Name, b.Coordinator, soakwork.Coordinators)
		}
		if b.What == "" {
			t.Errorf("%s: no description", b.Name)
		}
		if b.Targeted.Run == "" || len(b.Targeted.Pkgs) == 0 {
			t.Errorf("%s: no targeted check", b.Name)
		}
		for _, p := range b.Targeted.Pkgs {
			if _, err := os.Stat(filepath.Join(root, b.Targeted.Dir, p)); err != nil {
				t.Errorf("%s: targeted package %s/%s: %v", b.Name, b.Targeted.Dir, p, err)
			}
		}
		if len(b.Patch) == 0 {
			t.Errorf("%s: no patch", b.Name)
		}
		for _, p := range b.Patch {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.File)))
			if err != nil {
				t.Errorf("%s: %v", b.Name, err)
				continue
			}
			if n := strings.Count(string(data), p.Old); n != 1 {
				t.Errorf("%s: %s holds the patch's text %d times, want once: %q", b.Name, p.File, n, p.Old)
			}
			if p.Old == p.New {
				t.Errorf("%s: a patch that changes nothing", b.Name)
			}
		}
	}
}

// TestApplyRestore: a bug is planted in the copy only, a stale patch is
// refused without writing, and restoring gives the original back.
func TestApplyRestore(t *testing.T) {
	root, tree := t.TempDir(), t.TempDir()
	const orig = "a := 1\nb := 2\n"
	for _, d := range []string{root, tree} {
		os.MkdirAll(filepath.Join(d, "x"), 0o755)
		os.WriteFile(filepath.Join(d, "x", "f.go"), []byte(orig), 0o644)
	}
	b := Bug{Name: "t", Patch: []Patch{{File: "x/f.go", Old: "b := 2", New: "b := 3"}}}
	if err := applyBug(root, tree, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(tree, "x", "f.go")); string(got) != "a := 1\nb := 3\n" {
		t.Errorf("planted: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "x", "f.go")); string(got) != orig {
		t.Errorf("the tree itself changed: %q", got)
	}
	if err := restoreBug(root, tree, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(tree, "x", "f.go")); string(got) != orig {
		t.Errorf("restored: %q", got)
	}
	for _, old := range []string{"c := 3", " := "} { // absent; twice
		err := applyBug(root, tree, Bug{Name: "s", Patch: []Patch{{File: "x/f.go", Old: old, New: "z"}}})
		if err == nil || !strings.Contains(err.Error(), "stale catalogue") {
			t.Errorf("patch %q: %v, want a stale catalogue error", old, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(tree, "x", "f.go")); string(got) != orig {
		t.Errorf("a refused patch wrote: %q", got)
	}
}

// TestPick: -pick draws distinct bugs, the same for the same seed, and
// different seeds draw different sets.
func TestPick(t *testing.T) {
	a, err := choose("", 3, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := choose("", 3, 42)
	names := func(bs []Bug) string {
		var s []string
		for _, x := range bs {
			s = append(s, x.Name)
		}
		return strings.Join(s, ",")
	}
	if names(a) != names(b) || len(a) != 3 {
		t.Fatalf("seed 42: %s then %s", names(a), names(b))
	}
	if len(map[string]bool{a[0].Name: true, a[1].Name: true, a[2].Name: true}) != 3 {
		t.Errorf("repeated bug: %s", names(a))
	}
	differ := false
	for s := uint64(1); s < 20 && !differ; s++ {
		c, _ := choose("", 3, s)
		differ = names(c) != names(a)
	}
	if !differ {
		t.Error("every seed draws the same bugs")
	}
	for s := uint64(1); s < 200; s++ {
		c, _ := choose("", 3, s)
		for _, b := range c {
			if b.Open != "" {
				t.Fatalf("seed %d picked %s, a known survivor", s, b.Name)
			}
		}
	}
	if _, err := choose("nope", 0, 1); err == nil {
		t.Error("an unknown bug name was accepted")
	}
}

// TestFastPkgs: the fast path of a bug in nonce covers nonce and the
// packages whose tests reach it (lease); a bug in redislease is not run
// through once's tests, which do not reach it; a bug in a module of its
// own (lease/etcdlease) has none.
func TestFastPkgs(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := fastPkgs(root, Bug{Patch: []Patch{{File: "nonce/counter.go"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{rootModule + "/nonce", rootModule + "/lease"} {
		if !slices.Contains(pkgs, want) {
			t.Errorf("fast path of a nonce bug: %v, want %s in it", pkgs, want)
		}
	}
	pkgs, err = fastPkgs(root, Bug{Patch: []Patch{{File: "lease/redislease/claim.go"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pkgs, rootModule+"/lease/redislease") || slices.Contains(pkgs, rootModule+"/once") {
		t.Errorf("fast path of a redislease bug: %v, want redislease and not once (whose tests do not reach it)", pkgs)
	}
	pkgs, err = fastPkgs(root, Bug{Patch: []Patch{{File: "lease/redislease/scripts/renew.lua"}}})
	if err != nil || !slices.Contains(pkgs, rootModule+"/lease/redislease") {
		t.Errorf("fast path of a bug in a script redislease embeds: %v, %v; want redislease in it", pkgs, err)
	}
	if pkgs, err := fastPkgs(root, Bug{Patch: []Patch{{File: "lease/etcdlease/claim.go"}}}); err != nil || len(pkgs) != 0 {
		t.Errorf("fast path of an etcdlease bug: %v, %v; want none", pkgs, err)
	}
}
