package once_test

import (
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestMaskedDecimalZero: a masked signed or unsigned type shows the stored
// value that the cipher maps to 0 as "0" (the decimal of the shown value);
// its parsers read that spelling back, as text and as a JSON number,
// although "0" never spells an unmasked ID.
func TestMaskedDecimalZero(t *testing.T) {
	f := keyFactory(t, testBaseKey, nonce.Speck)
	b := once.Bind(f)
	stored := f.Cipher64().Decrypt(0)
	for _, o := range []once.Options{
		{Prefix: "n_", Format: once.Signed, Mask: true, Generator: b},
		{Format: once.Signed, Mask: true, Generator: b},
		{Format: once.Unsigned, Mask: true, Generator: b},
	} {
		id := once.FromUint64(stored)
		text, err := o.AppendText(nil, id)
		if err != nil {
			t.Fatal(err)
		}
		if want := o.Prefix + "0"; string(text) != want {
			t.Fatalf("%v: stored %d spelled %q, want %q", o.Format, stored, text, want)
		}
		back, err := once.OptionsParse(o, string(text))
		if err != nil || back != id {
			t.Errorf("%v prefix %q: %q parses to %d, %v; want %d", o.Format, o.Prefix, text, back.Uint64(), err, stored)
		}
		if o.Prefix == "" {
			back, err := once.OptionsUnmarshalJSON(o, []byte("0"))
			if err != nil || back != id {
				t.Errorf("%v: JSON number 0 unmarshals to %d, %v; want %d", o.Format, back.Uint64(), err, stored)
			}
		}
		for _, bad := range []string{"-0", "00", "+0"} {
			if _, err := once.OptionsParse(o, o.Prefix+bad); err == nil {
				t.Errorf("%v: %q parses", o.Format, o.Prefix+bad)
			}
		}
	}
	// Unmasked, "0" spells nothing.
	if _, err := once.OptionsParse(once.Options{Format: once.Signed}, "0"); err == nil {
		t.Error(`unmasked signed: "0" parses`)
	}
}
