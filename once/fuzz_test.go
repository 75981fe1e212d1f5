package once_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// fuzzOptions are the option sets the fuzz targets try every input with.
func fuzzOptions(t testing.TB) []once.Options {
	f := keyFactory(t, testBaseKey, nonce.Speck)
	b := once.Bind(f)
	return []once.Options{
		{},
		{Prefix: "usr_"},
		{Prefix: "x"},
		{Format: once.Hex},
		{Format: once.Hex32, Prefix: "o_"},
		{Format: once.Signed},
		{Format: once.Unsigned, Prefix: "n"},
		{Mask: true, Generator: b},
		{Prefix: "usr_", Format: once.Signed, Mask: true, Generator: b},
	}
}

func addSeeds(f *testing.F) {
	c := loadConformance(f)
	for _, v := range c.Formats {
		f.Add(v.URL64)
		f.Add(v.Hex)
		f.Add(v.Hex32)
		f.Add(v.Signed)
		f.Add(v.Unsigned)
	}
	for _, p := range c.Prefixed {
		f.Add(p.URL64)
		f.Add(p.Signed)
	}
	for _, set := range c.InvalidText {
		for _, in := range set.Inputs {
			f.Add(in)
		}
	}
	for _, n := range c.NormalizeText {
		f.Add(n.Input)
	}
}

// FuzzParse: the parsers never panic and fail only with ErrInvalid. The
// strict parser (a type's ParseAs) accepts exactly the canonical spelling:
// what it accepts formats back to the same text, byte for byte. The lenient
// ParseAny accepts a superset: its result formats canonically, and the
// canonical text parses strictly to the same ID (0 excepted, which has no
// spelling for the ID types).
func FuzzParse(f *testing.F) {
	addSeeds(f)
	opts := fuzzOptions(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range opts {
			strict, errS := once.OptionsParse(o, s)
			lenient, errL := o.ParseAny(s)
			for _, err := range []error{errS, errL} {
				if err == nil {
					continue
				}
				if !errors.Is(err, once.ErrInvalid) {
					t.Fatalf("%+v parse %q: error %v is not ErrInvalid", o, s, err)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "once: ") || len(msg) > 400 {
					t.Fatalf("message %q", msg)
				}
			}
			if errS != nil && !strict.IsZero() || errL != nil && !lenient.IsZero() {
				t.Fatalf("non-zero ID with an error")
			}
			if errS == nil {
				if strict.IsZero() {
					t.Fatalf("%+v: %q parses strictly to the zero ID", o, s)
				}
				if canon, _ := o.AppendText(nil, strict); string(canon) != s {
					t.Fatalf("%+v: strict parse of %q formats as %q", o, s, canon)
				}
				if errL != nil || lenient != strict {
					t.Fatalf("%+v: strict %q = %d, lenient = %d, %v", o, s, strict.Uint64(), lenient.Uint64(), errL)
				}
			}
			if errL != nil {
				continue
			}
			canon, err := o.AppendText(nil, lenient)
			if err != nil {
				t.Fatal(err)
			}
			if back, err := o.ParseAny(string(canon)); err != nil || back != lenient {
				t.Fatalf("%+v: %q -> %d -> %q -> %d, %v", o, s, lenient.Uint64(), canon, back.Uint64(), err)
			}
			back, err := once.OptionsParse(o, string(canon))
			if lenient.IsZero() != (err != nil) || back != lenient {
				t.Fatalf("%+v: canonical %q of %d parses strictly to %d, %v", o, canon, lenient.Uint64(), back.Uint64(), err)
			}
		}
		// Parse is the plain ID's strict parser.
		a, errA := once.Parse(s)
		b, errB := once.OptionsParse(once.Options{}, s)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("Parse and the default options disagree on %q", s)
		}
	})
}

// FuzzRoundTrip: text, JSON, Scan/Value and mask/unmask round-trip for any
// value and option set.
func FuzzRoundTrip(f *testing.F) {
	for _, v := range edgeValues {
		f.Add(v, uint8(0), uint8(0))
	}
	f.Add(uint64(0x338f28264e079f31), uint8(7), uint8(3))
	opts := fuzzOptions(f)
	key := keyFactory(f, testBaseKey, nonce.Blowfish)
	f.Fuzz(func(t *testing.T, v uint64, oi, di uint8) {
		o := opts[int(oi)%len(opts)]
		db := dbFormats[int(di)%len(dbFormats)]
		o.DBFormat, o.PersistPrefix = db.DBFormat, db.PersistPrefix && o.Prefix != ""
		id := once.FromUint64(v)

		txt, err := o.AppendText(nil, id)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := o.ParseAny(string(txt)); err != nil || back != id {
			t.Fatalf("%+v: text %q -> %v, %v", o, txt, back, err)
		}
		if v == 0 {
			// The zero ID: no spelling, no database value.
			if _, err := once.OptionsParse(o, string(txt)); !errors.Is(err, once.ErrInvalid) {
				t.Fatalf("%+v: %q parses strictly: %v", o, txt, err)
			}
			if _, err := once.OptionsValue(o, id); !errors.Is(err, once.ErrInvalid) {
				t.Fatalf("%+v: Value of the zero ID: %v", o, err)
			}
			if data := mustJSON(t, UserID(id)); string(data) != `""` {
				t.Fatalf("zero UserID marshals as %s", data)
			}
			return
		}
		if back, err := once.OptionsParse(o, string(txt)); err != nil || back != id {
			t.Fatalf("%+v: text %q -> %v, %v", o, txt, back, err)
		}
		dv, err := once.OptionsValue(o, id)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := once.OptionsScan(o, dv); err != nil || back != id {
			t.Fatalf("%+v: Scan(Value %#v) = %v, %v", o, dv, back, err)
		}
		// Typed JSON round trip (fixed types).
		for _, data := range [][]byte{mustJSON(t, UserID(id)), mustJSON(t, id), mustJSON(t, once.Typed[signedSpec](id))} {
			if !bytes.HasPrefix(data, []byte(`"`)) {
				t.Fatalf("JSON %s is not a string", data)
			}
		}
		var u UserID
		if err := u.UnmarshalJSON(mustJSON(t, UserID(id))); err != nil || once.ID(u) != id {
			t.Fatalf("JSON round trip %v: %v", u, err)
		}
		// Mask/unmask.
		b := key.Cipher64()
		if b.Decrypt(b.Encrypt(v)) != v || b.Encrypt(b.Decrypt(v)) != v {
			t.Fatalf("mask/unmask of %d", v)
		}
	})
}

func mustJSON(t *testing.T, v interface{ MarshalJSON() ([]byte, error) }) []byte {
	data, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzScan: Scan of arbitrary bytes never panics; what it accepts, Value
// gives back in canonical form and Scan reads again.
func FuzzScan(f *testing.F) {
	f.Add([]byte("123"))
	f.Add([]byte("usr_338f28264e079f31"))
	f.Add([]byte("18446744073709551615"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range dbFormats {
			for _, src := range []any{data, string(data)} {
				id, err := once.OptionsScan(o, src)
				if err != nil {
					if !errors.Is(err, once.ErrInvalid) || !id.IsZero() {
						t.Fatalf("%+v Scan(%q) = %v, %v", o, data, id, err)
					}
					continue
				}
				dv, err := once.OptionsValue(o, id)
				if err != nil {
					t.Fatal(err)
				}
				if back, err := once.OptionsScan(o, dv); err != nil || back != id {
					t.Fatalf("%+v: %q -> %v -> %#v -> %v, %v", o, data, id, dv, back, err)
				}
			}
		}
	})
}

// FuzzUnmarshalJSON: never panics; accepted input marshals back and
// unmarshals to the same ID.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`"usr_M48oJk4HnzE"`, `null`, `12`, `-1`, `"\u0041"`, `"M48oJk4HnzE"`, `1e3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u UserID
		if err := u.UnmarshalJSON(data); err == nil {
			var back UserID
			if err := back.UnmarshalJSON(mustJSON(t, u)); err != nil || back != u {
				t.Fatalf("%q -> %v -> %v, %v", data, u, back, err)
			}
		}
		var n once.Typed[signedSpec]
		if err := n.UnmarshalJSON(data); err == nil {
			var back once.Typed[signedSpec]
			if err := back.UnmarshalJSON(mustJSON(t, n)); err != nil || back != n {
				t.Fatalf("%q -> %v -> %v, %v", data, n, back, err)
			}
		}
	})
}
