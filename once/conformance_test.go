package once_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// The vectors prove two layers:
//   - the format layer, Options.AppendText and Options.ParseAny (what
//     cmd/once runs on): every vector, 0 and the normalize_text spellings
//     included;
//   - the ID types' own parsers and formatters (ParseAs, Parse, String; with
//     prefixes and formats that have no test type, OptionsParse, which runs
//     the same code): the canonical spelling of every non-zero vector; 0
//     has none.
// invalid_text is rejected by both layers.

// spell formats the stored value v per opts (Options.AppendText).
func spell(t testing.TB, opts once.Options, v uint64) string {
	t.Helper()
	b, err := opts.AppendText(nil, once.FromUint64(v))
	if err != nil {
		t.Fatalf("AppendText(%d) with %+v: %v", v, opts, err)
	}
	return string(b)
}

// strictParse is the parser of an ID type with the given prefix and format
// (OptionsParse runs the code of ParseAs with run-time options).
func strictParse(_ testing.TB, prefix string, f once.Format) func(string) (uint64, error) {
	return func(s string) (uint64, error) {
		id, err := once.OptionsParse(once.Options{Prefix: prefix, Format: f}, s)
		return id.Uint64(), err
	}
}

// checkVector runs one spelling of v through both layers.
func checkVector(t *testing.T, prefix string, format once.Format, v uint64, text string) {
	t.Helper()
	opts := once.Options{Prefix: prefix, Format: format}
	if got := spell(t, opts, v); got != text {
		t.Errorf("AppendText %s prefix %q (%d) = %q, want %q", format, prefix, v, got, text)
	}
	if id, err := opts.ParseAny(text); err != nil || id.Uint64() != v {
		t.Errorf("ParseAny %s %q = %d, %v; want %d", format, text, id.Uint64(), err, v)
	}
	got, err := strictParse(t, prefix, format)(text)
	if v == 0 {
		if !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAs %s %q (0) = %d, %v; want ErrInvalid", format, text, got, err)
		}
		return
	}
	if err != nil || got != v {
		t.Errorf("ParseAs %s %q = %d, %v; want %d", format, text, got, err, v)
	}
}

func TestConformanceFormats(t *testing.T) {
	c := loadConformance(t)
	for _, f := range c.Formats {
		v := mustUint(t, f.Unsigned)
		want := map[once.Format]string{once.URL64: f.URL64, once.Hex: f.Hex, once.Hex32: f.Hex32,
			once.Signed: f.Signed, once.Unsigned: f.Unsigned}
		for format, text := range want {
			checkVector(t, "", format, v, text)
		}
		// Plain ID: Parse and String, url64 only.
		id := once.FromUint64(v)
		if v != 0 && id.String() != f.URL64 {
			t.Errorf("ID(%d).String() = %q, want %q", v, id, f.URL64)
		}
		if got, err := once.Parse(f.URL64); v != 0 && (err != nil || got != id) {
			t.Errorf("Parse(%q) = %v, %v; want %v", f.URL64, got, err, id)
		}
		for _, s := range []string{f.Hex, f.Hex32} {
			if _, err := once.Parse(s); !errors.Is(err, once.ErrInvalid) {
				t.Errorf("Parse(%q) = %v; want ErrInvalid (not url64)", s, err)
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
			checkVector(t, p.Prefix, format, v, text)
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
		format := mustFormat(t, set.Format)
		opts := once.Options{Prefix: set.Prefix, Format: format}
		strict := strictParse(t, set.Prefix, format)
		for _, in := range set.Inputs {
			if got, err := strict(in); !errors.Is(err, once.ErrInvalid) || got != 0 {
				t.Errorf("prefix %q format %s: ParseAs(%q) = %d, %v; want ErrInvalid", set.Prefix, set.Format, in, got, err)
			}
			if id, err := opts.ParseAny(in); !errors.Is(err, once.ErrInvalid) || !id.IsZero() {
				t.Errorf("prefix %q format %s: ParseAny(%q) = %v, %v; want ErrInvalid", set.Prefix, set.Format, in, id, err)
			}
			// The same through text unmarshalling ("" is the zero ID there).
			var u once.ID
			if set.Prefix == "" && set.Format == "url64" && in != "" {
				if err := u.UnmarshalText([]byte(in)); !errors.Is(err, once.ErrInvalid) {
					t.Errorf("UnmarshalText(%q) = %v", in, err)
				}
			}
		}
	}
}

// TestConformanceNormalize: ParseAny reads each input and AppendText spells
// it canonically; the type's own parser accepts only the canonical text.
func TestConformanceNormalize(t *testing.T) {
	c := loadConformance(t)
	for _, n := range c.NormalizeText {
		format := mustFormat(t, n.Format)
		opts := once.Options{Prefix: n.Prefix, Format: format}
		id, err := opts.ParseAny(n.Input)
		if err != nil {
			t.Errorf("ParseAny(%q): %v", n.Input, err)
			continue
		}
		if got := spell(t, opts, id.Uint64()); got != n.Canonical {
			t.Errorf("%q normalises to %q, want %q", n.Input, got, n.Canonical)
		}
		strict := strictParse(t, n.Prefix, format)
		if _, err := strict(n.Input); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAs(%q) = %v; want ErrInvalid (not canonical)", n.Input, err)
		}
		if got, err := strict(n.Canonical); err != nil || got != id.Uint64() {
			t.Errorf("ParseAs(%q) = %d, %v; want %d", n.Canonical, got, err, id.Uint64())
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

				if plain == 0 {
					// The zero ID has no spelling; the format layer masks 0.
					o := once.Options{Format: once.Hex, Mask: true, Generator: &maskBinding}
					if got := spell(t, o, 0); got != want {
						t.Errorf("%s: masked hex of 0 = %s, want %s", cipher, got, want)
					}
					if back, err := o.ParseAny(want); err != nil || !back.IsZero() {
						t.Errorf("%s: unmask %s = %v, %v; want 0", cipher, want, back.Uint64(), err)
					}
					if _, err := once.ParseAs[once.Typed[maskedHex]](want); !errors.Is(err, once.ErrInvalid) {
						t.Errorf("%s: ParseAs %s (masked 0) = %v; want ErrInvalid", cipher, want, err)
					}
					continue
				}
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
