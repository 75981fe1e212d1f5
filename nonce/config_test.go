package nonce

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNewRejectsBadConfig(t *testing.T) {
	clk := newFakeClock(testStart)
	secret := bytes.Repeat([]byte{0xA5}, 31)
	for _, tc := range []struct {
		name string
		cfg  Config
		msg  string
	}{
		{"machine -1", Config{Fixed: true, MachineID: -1}, "machine ID"},
		{"machine 512", Config{Fixed: true, MachineID: 512}, "machine ID"},
		{"short base key", Config{Fixed: true, BaseKey: secret}, "at least 32 bytes"},
		{"aes for 64", Config{Fixed: true, BaseKey: testBaseKey, Cipher64: AES}, "not available for 64-bit"},
		{"aes for 96", Config{Fixed: true, BaseKey: testBaseKey, Cipher96: AES}, "not available for 96-bit"},
		{"blowfish for 128", Config{Fixed: true, BaseKey: testBaseKey, Cipher128: Blowfish}, "not available for 128-bit"},
		{"des3 for 128", Config{Fixed: true, Cipher128: DES3}, "not available for 128-bit"},
		{"unknown cipher", Config{Fixed: true, Cipher64: Cipher(99)}, "cipher(99)"},
		{"Key64 length", Config{Fixed: true, Key64: secret[:15]}, "Key64"},
		{"Key64 des3 length", Config{Fixed: true, Cipher64: DES3, Key64: secret[:16]}, "24 bytes"},
		{"Key96 speck length", Config{Fixed: true, Cipher96: Speck, Key96: secret[:16]}, "18 bytes"},
		{"Key128 length", Config{Fixed: true, Key128: secret[:16]}, "32 bytes"},
		{"base kind", Config{Fixed: true, EncryptedBase: Kind(7)}, "EncryptedBase kind(7)"},
		{"encrypted base", Config{Fixed: true, EncryptedBase: Encrypted}, "EncryptedBase encrypted: want counter"},
		{"machine ID without Fixed", withMachineID(Config{}, 3), "MachineID 3 without Fixed"},
		{"epoch in the future", Config{Fixed: true, Now: clk.Now, Epoch: testStart.Add(time.Hour)}, "before the epoch"},
		{"epoch overflow", Config{Fixed: true, Now: clk.Now, Epoch: testStart.Add(-(1<<42 + 1) * time.Millisecond)}, "overflow"},
		{"epoch overflow awaiting", Config{Now: clk.Now, Epoch: testStart.Add(-(1 << 42) * time.Millisecond)}, "overflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.cfg)
			if !errors.Is(err, ErrConfig) || f != nil {
				t.Fatalf("New: %v, %v; want ErrConfig", f, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "nonce: ") || !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q, want prefix \"nonce: \" and %q", msg, tc.msg)
			}
			if strings.Contains(msg, hex.EncodeToString(secret[:4])) || strings.Contains(msg, string(secret[:4])) {
				t.Fatalf("message %q leaks key bytes", msg)
			}
		})
	}
}

// withMachineID returns cfg with MachineID set to id.
func withMachineID(cfg Config, id int) Config {
	cfg.MachineID = id
	return cfg
}

func TestEpochJustInRange(t *testing.T) {
	clk := newFakeClock(testStart)
	epoch := testStart.Add(-(1<<42 - 2) * time.Millisecond)
	f := mustNew(t, Config{Fixed: true, Now: clk.Now, Epoch: epoch})
	v, err := f.Counter64()
	if err != nil {
		t.Fatal(err)
	}
	if ts64(v) != 1<<42-2 {
		t.Fatalf("ts %d, want %d", ts64(v), uint64(1<<42-2))
	}
	if got := Split64(v, epoch).Time; !got.Equal(testStart) {
		t.Fatalf("Split64 time %v, want %v", got, testStart)
	}
	// The clock runs into the end of the range: generation stops.
	clk.Advance(10 * time.Millisecond)
	if _, err := f.Sortable64(); !errors.Is(err, ErrConfig) {
		t.Fatalf("Sortable64 past 2^42 ms: %v, want ErrConfig", err)
	}
}

func TestNoKey(t *testing.T) {
	f := mustNew(t, Config{Fixed: true})
	if f.Cipher64() != nil {
		t.Fatal("Cipher64() != nil without key material")
	}
	for name, fn := range map[string]func() error{
		"Encrypted64":  func() error { _, err := f.Encrypted64(); return err },
		"Encrypted96":  func() error { _, err := f.Encrypted96(); return err },
		"Encrypted128": func() error { _, err := f.Encrypted128(); return err },
		"Encrypt64":    func() error { _, err := f.Encrypt64(1); return err },
		"Decrypt64":    func() error { _, err := f.Decrypt64(1); return err },
		"Encrypt96":    func() error { _, err := f.Encrypt96([12]byte{}); return err },
		"Decrypt96":    func() error { _, err := f.Decrypt96([12]byte{}); return err },
		"Encrypt128":   func() error { _, err := f.Encrypt128([16]byte{}); return err },
		"Decrypt128":   func() error { _, err := f.Decrypt128([16]byte{}); return err },
	} {
		if err := fn(); !errors.Is(err, ErrNoKey) || !strings.HasPrefix(err.Error(), "nonce: ") {
			t.Errorf("%s: %v, want ErrNoKey", name, err)
		}
	}
	// Plain nonces still work.
	if _, err := f.Counter64(); err != nil {
		t.Fatal(err)
	}

	// A 64-bit override alone gives 64-bit encryption only.
	g := mustNew(t, Config{Fixed: true, Cipher64: Speck, Key64: make([]byte, 16)})
	if _, err := g.Encrypted64(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Encrypted96(); !errors.Is(err, ErrNoKey) {
		t.Fatalf("Encrypted96 with only Key64: %v", err)
	}
}

// TestOverrideWinsOverDerived: an override key replaces the derived one
// for its size only.
func TestOverrideWinsOverDerived(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 16)
	derived := mustNew(t, Config{Fixed: true, BaseKey: testBaseKey})
	over := mustNew(t, Config{Fixed: true, BaseKey: testBaseKey, Key64: key})
	direct, _ := NewBlock64(Blowfish, key)
	a, _ := over.Encrypt64(12345)
	b, _ := derived.Encrypt64(12345)
	if a != direct.Encrypt(12345) || a == b {
		t.Fatalf("override not used: %x (derived %x)", a, b)
	}
	x, _ := over.Encrypt128([16]byte{1})
	y, _ := derived.Encrypt128([16]byte{1})
	if x != y {
		t.Fatal("a 64-bit override changed the 128-bit key")
	}
}

func TestBlockConstructorErrors(t *testing.T) {
	if _, err := NewBlock64(AES, make([]byte, 32)); !errors.Is(err, ErrConfig) {
		t.Errorf("NewBlock64(AES): %v", err)
	}
	if _, err := NewBlock64(Blowfish, make([]byte, 15)); !errors.Is(err, ErrConfig) {
		t.Errorf("NewBlock64 short key: %v", err)
	}
	if _, err := Block64FromBaseKey(Speck, make([]byte, 31)); !errors.Is(err, ErrConfig) {
		t.Errorf("Block64FromBaseKey short base key: %v", err)
	}
	if _, err := DeriveKey(testBaseKey, "aes", 0); !errors.Is(err, ErrConfig) || err.Error() != "nonce: derived key length must be positive, got 0" {
		t.Errorf("DeriveKey n=0: %v", err)
	}
	if k, err := DeriveKey(testBaseKey, "aes", 1); err != nil || len(k) != 1 {
		t.Errorf("DeriveKey n=1: %x, %v", k, err)
	}
}

func TestParseCipher(t *testing.T) {
	for _, c := range []Cipher{CipherDefault, Blowfish, Speck, DES3, AES} {
		got, err := ParseCipher(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCipher(%q) = %v, %v", c.String(), got, err)
		}
	}
	if got, err := ParseCipher("SPECK"); err != nil || got != Speck {
		t.Errorf("ParseCipher(SPECK) = %v, %v", got, err)
	}
	if got, err := ParseCipher(""); err != nil || got != CipherDefault {
		t.Errorf("ParseCipher(\"\") = %v, %v", got, err)
	}
	_, err := ParseCipher("rot13" + strings.Repeat("x", 100))
	if !errors.Is(err, ErrConfig) || len(err.Error()) > 120 {
		t.Errorf("ParseCipher(long junk): %v", err)
	}
	for k, want := range map[Kind]string{0: "default", Counter: "counter", Sortable: "sortable", Encrypted: "encrypted", 9: "kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestSplit64(t *testing.T) {
	epoch := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ts, machine, count uint64
	}{{0, 0, 0}, {1, 511, 8191}, {123456789, 17, 4242}, {1<<42 - 1, 256, 1}} {
		v := tc.ts<<22 | tc.machine<<13 | tc.count
		p := Split64(v, epoch)
		want := epoch.Add(time.Duration(tc.ts) * time.Millisecond)
		if !p.Time.Equal(want) || p.MachineID != int(tc.machine) || p.Counter != int(tc.count) {
			t.Errorf("Split64(%x) = %+v, want %v/%d/%d", v, p, want, tc.machine, tc.count)
		}
	}
	// Zero epoch means the default one, and a factory's values split back
	// into its clock, machine ID and counter.
	clk := newFakeClock(testStart.Add(1234 * time.Microsecond))
	f := mustNew(t, Config{Fixed: true, MachineID: 400, Now: clk.Now})
	f.Counter64()
	v, _ := f.Counter64()
	p := Split64(v, timeZero)
	if want := testStart.Add(time.Millisecond); !p.Time.Equal(want) || p.MachineID != 400 || p.Counter != 1 {
		t.Fatalf("Split64(factory value) = %+v, want %v/400/1", p, want)
	}
	if f.Epoch() != DefaultEpoch() || DefaultEpoch().UnixMilli() != DefaultEpochUnixMilli {
		t.Fatal("default epoch mismatch")
	}
}
