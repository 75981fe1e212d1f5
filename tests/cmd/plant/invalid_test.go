package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSoakInvalid: a soak log that ends in the runner's INVALID line is a
// run that proved nothing, not a catch; a failing soak is a catch, and a
// mention of the word elsewhere is not the runner's verdict.
func TestSoakInvalid(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		log     string
		invalid bool
	}{
		"no IDs":       {"soak check: PASS: 9 files\nsoak: report in x\nsoak: INVALID: no ID was generated (is the coordinator up? see logs/)\n", true},
		"no hand-offs": {"soak: report in x\nsoak: INVALID: no machine ID changed hands in a contention run\n", true},
		"a finding":    {"soak check: FAIL: 9 files\n  EARLY CLAIM machine 0: ...\nsoak: report in x\n", false},
		"a mention":    {"w1: lease: soak: INVALID: is not the runner's line\n", false},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tc.log), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := soakInvalid(p); got != tc.invalid {
			t.Errorf("%s: soakInvalid = %v, want %v", name, got, tc.invalid)
		}
	}
	if soakInvalid(filepath.Join(dir, "missing")) {
		t.Error("a missing log counts as invalid")
	}
}
