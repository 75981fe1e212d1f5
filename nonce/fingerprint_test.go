package nonce_test

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
)

func TestFingerprint(t *testing.T) {
	k1 := []byte(strings.Repeat("k", 32))
	k2 := []byte(strings.Repeat("k", 31) + "l")
	f1, err := nonce.Fingerprint(k1)
	if err != nil {
		t.Fatal(err)
	}
	if len(f1) != 8 || strings.Trim(f1, "0123456789abcdef") != "" {
		t.Fatalf("Fingerprint = %q, want 8 lowercase hex digits", f1)
	}
	// The documented derivation, computed independently.
	raw, err := pbkdf2.Key(sha256.New, string(k1), []byte("fingerprint"), 1000, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(raw); f1 != want {
		t.Fatalf("Fingerprint = %q, want PBKDF2-HMAC-SHA256(key, \"fingerprint\", 1000, 4) = %q", f1, want)
	}
	if again, _ := nonce.Fingerprint(k1); again != f1 {
		t.Fatalf("Fingerprint not stable: %q then %q", f1, again)
	}
	if f2, _ := nonce.Fingerprint(k2); f2 == f1 {
		t.Fatalf("keys differing in one byte share fingerprint %q", f1)
	}
	for _, k := range [][]byte{nil, []byte("short")} {
		if f, err := nonce.Fingerprint(k); !errors.Is(err, nonce.ErrConfig) || f != "" {
			t.Errorf("Fingerprint(%d bytes) = %q, %v; want \"\", ErrConfig", len(k), f, err)
		}
	}
}

func TestFactoryFingerprint(t *testing.T) {
	key := []byte(strings.Repeat("f", 40))
	f, err := nonce.New(nonce.Config{BaseKey: key})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := nonce.Fingerprint(key)
	if got := f.Fingerprint(); got != want || got == "" {
		t.Fatalf("Factory.Fingerprint = %q, want %q", got, want)
	}
	g, err := nonce.New(nonce.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Fingerprint(); got != "" {
		t.Fatalf("Fingerprint of a factory without a key = %q, want \"\"", got)
	}
}

func ExampleFingerprint() {
	fp, err := nonce.Fingerprint([]byte("an example key, 32 bytes or more: not a secret"))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(fp), "hex digits")
	// Output: 8 hex digits
}

// TestConfigFingerprint: Config.Fingerprint replaces the base key's
// fingerprint the factory reports, and is refused unless spelled as
// Fingerprint spells one.
func TestConfigFingerprint(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef-fingerprint")
	for _, good := range []string{"0a1b2c3d", "09af90fa"} { // the first and last digit and letter
		f, err := nonce.New(nonce.Config{BaseKey: key, Fingerprint: good})
		if err != nil || f.Fingerprint() != good {
			t.Fatalf("New with Fingerprint %s: %v, reports %q", good, err, f.Fingerprint())
		}
	}
	for _, bad := range []string{"0A1B2C3D", "0a1b2c3", "0a1b2c3d4", "0a1b2c3g", "0a1b2c3/", "0a1b2c3:", "0a1b2c3`"} {
		if _, err := nonce.New(nonce.Config{BaseKey: key, Fingerprint: bad}); !errors.Is(err, nonce.ErrConfig) {
			t.Errorf("New with Fingerprint %q: %v, want ErrConfig", bad, err)
		}
	}
}
