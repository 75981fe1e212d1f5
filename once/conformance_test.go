package once_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// spell formats the stored value v per opts.
func spell(t testing.TB, opts once.Options, v uint64) string {
	t.Helper()
	b, err := opts.AppendText(nil, once.FromUint64(v))
	if err != nil {
		t.Fatalf("AppendText(%d) with %+v: %v", v, opts, err)
	}
	return string(b)
}

func TestConformanceFormats(t *testing.T) {
	c := loadConformance(t)
	for _, f := range c.Formats {
		v := mustUint(t, f.Unsigned)
		want := map[once.Format]string{once.URL64: f.URL64, once.Hex: f.Hex, once.Hex32: f.Hex32,
			once.Signed: f.Signed, once.Unsigned: f.Unsigned}
		for format, text := range want {
			opts := once.Options{Format: format}
			if got := spell(t, opts, v); got != text {
				t.Errorf("%s(%d) = %q, want %q", format, v, got, text)
			}
			id, err := opts.Parse(text)
			if err != nil || id.Uint64() != v {
				t.Errorf("Parse %s %q = %d, %v; want %d", format, text, id.Uint64(), err, v)
			}
		}
		// Plain ID: url64 by default, hex and hex32 accepted by length.
		id := once.FromUint64(v)
		if id.String() != f.URL64 {
			t.Errorf("ID(%d).String() = %q, want %q", v, id, f.URL64)
		}
		for _, s := range []string{f.URL64, f.Hex, f.Hex32} {
			if got, err := once.Parse(s); err != nil || got != id {
				t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, id)
			}
		}
		if id.Int64() != int64(v) || once.FromInt64(int64(v)) != id {
			t.Errorf("Int64 mismatch for %d", v)
		}
	}
}

func TestConformancePrefixed(t *testing.T) {
	c := loadConformance(t)
	for _, p := range c.Prefixed {
		v := mustUint(t, p.Unsigned)
		want := map[once.Format]string{once.URL64: p.URL64, once.Hex: p.Hex, once.Hex32: p.Hex32, once.Signed: p.Signed}
		for format, text := range want {
			opts := once.Options{Prefix: p.Prefix, Format: format}
			if got := spell(t, opts, v); got != text {
				t.Errorf("%s prefix %q (%d) = %q, want %q", format, p.Prefix, v, got, text)
			}
			id, err := opts.Parse(text)
			if err != nil || id.Uint64() != v {
				t.Errorf("Parse %s %q = %d, %v; want %d", format, text, id.Uint64(), err, v)
			}
		}
		if p.Prefix == "usr_" {
			u, err := once.ParseAs[UserID](p.URL64)
			if err != nil || u.Uint64() != v || u.String() != p.URL64 {
				t.Errorf("UserID %q = %v (%d), %v", p.URL64, u, u.Uint64(), err)
			}
		}
	}
}

func TestConformanceInvalidText(t *testing.T) {
	c := loadConformance(t)
	for _, set := range c.InvalidText {
		opts := once.Options{Prefix: set.Prefix, Format: mustFormat(t, set.Format)}
		for _, in := range set.Inputs {
			id, err := opts.Parse(in)
			if !errors.Is(err, once.ErrInvalid) {
				t.Errorf("prefix %q format %s: Parse(%q) = %v, %v; want ErrInvalid", set.Prefix, set.Format, in, id, err)
				continue
			}
			if !id.IsZero() {
				t.Errorf("Parse(%q) returned a non-zero ID with an error", in)
			}
			// The same through text and JSON unmarshalling.
			var u once.ID
			if set.Prefix == "" && set.Format == "url64" {
				if err := u.UnmarshalText([]byte(in)); !errors.Is(err, once.ErrInvalid) {
					t.Errorf("UnmarshalText(%q) = %v", in, err)
				}
			}
		}
	}
}

func TestConformanceNormalize(t *testing.T) {
	c := loadConformance(t)
	for _, n := range c.NormalizeText {
		opts := once.Options{Prefix: n.Prefix, Format: mustFormat(t, n.Format)}
		id, err := opts.Parse(n.Input)
		if err != nil {
			t.Errorf("Parse(%q): %v", n.Input, err)
			continue
		}
		if got := spell(t, opts, id.Uint64()); got != n.Canonical {
			t.Errorf("%q normalises to %q, want %q", n.Input, got, n.Canonical)
		}
	}
}

// TestConformanceMasked runs every 64-bit block vector through masked ID
// types: the stored value is the plaintext, the shown value the ciphertext.
func TestConformanceMasked(t *testing.T) {
	c := loadConformance(t)
	defer maskBinding.Set(nil)
	for _, k := range c.Keys {
		key, err := hex.DecodeString(k.BaseKeyHex)
		if err != nil {
			t.Fatal(err)
		}
		for _, cipher := range []nonce.Cipher{nonce.Blowfish, nonce.Speck, nonce.DES3} {
			maskBinding.Set(keyFactory(t, key, cipher))
			for _, b := range k.Block64 {
				plain := mustHex64(t, b.Plain)
				want := map[nonce.Cipher]string{nonce.Blowfish: b.Blowfish, nonce.Speck: b.Speck, nonce.DES3: b.DES3}[cipher]

				id := once.Typed[maskedHex](once.FromUint64(plain))
				if got := id.String(); got != want {
					t.Errorf("%s: masked hex of %s = %s, want %s", cipher, b.Plain, got, want)
				}
				back, err := once.ParseAs[once.Typed[maskedHex]](want)
				if err != nil || back != id {
					t.Errorf("%s: unmask %s = %v, %v; want %s", cipher, want, back.Uint64(), err, b.Plain)
				}
				if cipher == nonce.Blowfish {
					m := MaskedID(once.FromUint64(plain))
					if got := m.String(); got != b.BlowfishURL64 {
						t.Errorf("masked url64 of %s = %s, want %s", b.Plain, got, b.BlowfishURL64)
					}
					back, err := once.ParseAs[MaskedID](b.BlowfishURL64)
					if err != nil || back != m {
						t.Errorf("unmask %s = %x, %v; want %s", b.BlowfishURL64, back.Uint64(), err, b.Plain)
					}
				}
			}
		}
	}
}
