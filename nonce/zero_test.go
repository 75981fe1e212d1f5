package nonce_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
)

// TestZeroConfigCannotGenerate: nonce.New(nonce.Config{}) makes a factory
// that generates no value, of any kind or size, until it is told which
// machine ID it owns; its error names the two ways to tell it.
func TestZeroConfigCannotGenerate(t *testing.T) {
	f, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for name, gen := range map[string]func() error{
		"Counter64":   func() error { _, err := f.Counter64(); return err },
		"Sortable64":  func() error { _, err := f.Sortable64(); return err },
		"Counter96":   func() error { _, err := f.Counter96(); return err },
		"Sortable96":  func() error { _, err := f.Sortable96(); return err },
		"Counter128":  func() error { _, err := f.Counter128(); return err },
		"Sortable128": func() error { _, err := f.Sortable128(); return err },
	} {
		err := gen()
		if !errors.Is(err, nonce.ErrDisabled) {
			t.Fatalf("%s of nonce.New(nonce.Config{}): err = %v, want ErrDisabled", name, err)
		}
		for _, want := range []string{"no machine ID yet", "lease.Start", "Config.Fixed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: message %q does not mention %q", name, err, want)
			}
		}
	}
	if f.Enabled() {
		t.Fatal("Enabled() = true")
	}

	// Single-process use names the machine ID explicitly.
	fixed, err := nonce.New(nonce.Config{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := fixed.Counter64()
	if err != nil || v == 0 || nonce.Split64(v, fixed.Epoch()).MachineID != 0 {
		t.Fatalf("Fixed factory: %#x, %v; want a value on machine ID 0", v, err)
	}
}
