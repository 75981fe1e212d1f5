package once_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestInvalidTextMessages: what the parsers say about each kind of bad
// text, with the offsets of the bad characters, for the strict parser
// (ParseAs) and the lenient one (Options.ParseAny).
func TestInvalidTextMessages(t *testing.T) {
	usr := once.Options{Prefix: "usr_"}
	hex := once.Options{Prefix: "usr_", Format: once.Hex}
	hex32 := once.Options{Prefix: "usr_", Format: once.Hex32}
	signed := once.Options{Format: once.Signed}
	unsigned := once.Options{Prefix: "n", Format: once.Unsigned}
	cases := []struct {
		o       once.Options
		lenient bool
		in      string
		want    string // the message after `once: invalid ID "<in>": `
	}{
		{usr, false, "", "missing prefix \"usr_\""},
		{usr, false, "us", "missing prefix \"usr_\""},
		{usr, false, "USR_", "prefix in the wrong case, want \"usr_\""},
		{usr, false, "USR_AAAAAAAAAAB", "prefix in the wrong case, want \"usr_\""},
		{usr, false, "usr_usr_AAAAAAAAAAB", "prefix \"usr_\" repeated"},
		{usr, false, "usr_", "nothing after the prefix"},
		{usr, false, "usr_AAAAAAAAAA", "length 10, want 11 (url64)"},
		{usr, false, "usr_AAAAAAAAAA*", "invalid url64 character '*' at offset 14"},
		{usr, false, "usr_AAAAAAAAAAB", "non-zero spare bits in the last character (not the canonical url64 spelling)"},
		{usr, false, "usr_AAAAAAAAAAA", "spells 0, the zero ID (\"no ID\"), whose only spelling is \"\""},
		{usr, false, "usr_AAAAAAAAAA\x80", "invalid url64 character '\\x80' at offset 14"},
		{usr, false, "usr_AAAAAAAAAA\x7f", "invalid url64 character '\\x7f' at offset 14"},
		{hex, false, "usr_000000000000000G", "invalid hex character 'G' at offset 19"},
		{hex, false, "usr_000000000000000g", "invalid hex character 'g' at offset 19"},
		{hex, false, "usr_000000000000000A", "upper-case 'A' at offset 19 (the canonical hex spelling is lowercase)"},
		{hex, false, "usr_0000000000000000", "spells 0, the zero ID (\"no ID\"), whose only spelling is \"\""},
		{hex32, false, "usr_000000000000W", "invalid hex32 character 'W' at offset 16"},
		{hex32, false, "usr_000000000000V", "upper-case 'V' at offset 16 (the canonical hex32 spelling is lowercase)"},
		{hex32, false, "usr_0000000000001", "non-zero spare bits in the last character (not the canonical hex32 spelling)"},
		{signed, false, "", "empty (the zero ID's spelling, which parsing rejects; UnmarshalText and UnmarshalJSON accept it)"},
		{signed, false, "-", "sign without digits"},
		{signed, false, "-0", "spells 0, the zero ID (\"no ID\"), whose only spelling is \"\""},
		{signed, false, "0", "spells 0, the zero ID (\"no ID\"), whose only spelling is \"\""},
		{signed, false, "+1", "a '+' sign (the canonical spelling has none)"},
		{signed, false, "01", "a leading zero (not the canonical spelling)"},
		{signed, false, "-01", "a leading zero (not the canonical spelling)"},
		{signed, false, "-1/", "invalid character '/' at offset 2, want a decimal integer"},
		{signed, false, "-1:", "invalid character ':' at offset 2, want a decimal integer"},
		{signed, false, "9223372036854775808", "out of range [-2^63, 2^63-1] for format signed"},
		{unsigned, false, "n-1", "negative, out of range for format unsigned"},
		{unsigned, false, "n1/", "invalid character '/' at offset 2, want a decimal integer"},
		{unsigned, false, "n:", "invalid character ':' at offset 1, want a decimal integer"},
		{unsigned, false, "n18446744073709551616", "out of range [0, 2^64-1] for format unsigned"},
		{usr, true, "usr_AAAAAAAAAAAA", "length 12, want 11 (url64), 13 (hex32) or 16 (hex)"},
		{usr, true, "usr_AAAAAAAAAA", "length 10, want 11 (url64), 13 (hex32) or 16 (hex)"},
		{usr, true, "usr_AAAAAAAAAA*", "invalid url64 character '*' at offset 14"},
		{usr, true, "usr_AAAAAAAAAAB", "non-zero spare bits in the last character (not the canonical url64 spelling)"},
		{usr, true, "Usr_AAAAAAAAAAA", "prefix in the wrong case, want \"usr_\""},
		{usr, true, "usr_000000000000W", "invalid hex32 character 'W' at offset 16"},
		{usr, true, "usr_0000000000001", "non-zero spare bits in the last character (not the canonical hex32 spelling)"},
		{usr, true, "usr_000000000000000G", "invalid hex character 'G' at offset 19"},
		{signed, true, "", "empty, want a decimal integer"},
		{signed, true, "+-1", "more than one sign"},
		{signed, true, "+", "sign without digits"},
		{signed, true, "+x", "invalid character 'x' at offset 1, want a decimal integer"},
		{signed, true, "-1/", "invalid character '/' at offset 2, want a decimal integer"},
		{signed, true, "1:", "invalid character ':' at offset 1, want a decimal integer"},
		{signed, true, "-9223372036854775809", "out of range [-2^63, 2^64-1]"},
		{unsigned, true, "n18446744073709551616", "out of range [-2^63, 2^64-1]"},
		{unsigned, true, "n+:", "invalid character ':' at offset 2, want a decimal integer"},
	}
	for _, c := range cases {
		var err error
		if c.lenient {
			_, err = c.o.ParseAny(c.in)
		} else {
			_, err = once.OptionsParse(c.o, c.in)
		}
		if !errors.Is(err, once.ErrInvalid) {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if want := "once: invalid ID " + strconv.Quote(c.in) + ": " + c.want; err.Error() != want {
			t.Errorf("%q (lenient %v):\n got %s\nwant %s", c.in, c.lenient, err, want)
		}
	}
}

// TestParseAnyLimits: the lenient parser reads every letter of hex and
// hex32 in upper case, and decimals up to the ends of [-2^63, 2^64-1] and
// no further; the canonical parser reads 2^64-1 for format unsigned.
func TestParseAnyLimits(t *testing.T) {
	for _, c := range []struct {
		f        once.Format
		alphabet string
		n        int
	}{
		{once.Hex, "0123456789abcdef", 16},
		{once.Hex32, "0123456789abcdefghijklmnopqrstuv", 13},
	} {
		o := once.Options{Format: c.f}
		for i := range len(c.alphabet) {
			lower := c.alphabet[i:i+1] + strings.Repeat("0", c.n-1)
			want, err := once.OptionsParse(o, lower)
			if lower[0] == '0' {
				want, err = once.ID{}, nil
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{lower, strings.ToUpper(lower)} {
				if got, err := o.ParseAny(s); err != nil || got != want {
					t.Errorf("%s ParseAny(%q) = %v, %v; want %v", c.f, s, got, err, want)
				}
			}
		}
	}
	for _, c := range []struct {
		f    once.Format
		in   string
		want uint64
	}{
		{once.Unsigned, "18446744073709551615", 1<<64 - 1},
		{once.Signed, "18446744073709551615", 1<<64 - 1},
		{once.Signed, "-9223372036854775808", 1 << 63},
		{once.Unsigned, "-9223372036854775808", 1 << 63},
	} {
		o := once.Options{Format: c.f}
		if got, err := o.ParseAny(c.in); err != nil || got.Uint64() != c.want {
			t.Errorf("%s ParseAny(%q) = %v, %v; want %d", c.f, c.in, got, err, c.want)
		}
	}
	if got, err := once.OptionsParse(once.Options{Format: once.Unsigned}, "18446744073709551615"); err != nil || got.Uint64() != 1<<64-1 {
		t.Errorf("unsigned parse(2^64-1) = %v, %v", got, err)
	}
	for _, s := range []string{"18446744073709551616", "18446744073709551617", "18446744073709551620", "-9223372036854775809", "+18446744073709551616"} {
		if got, err := (once.Options{Format: once.Unsigned}).ParseAny(s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAny(%q) = %v, %v; want ErrInvalid", s, got, err)
		}
	}
	for _, s := range []string{"18446744073709551616", "18446744073709551617"} {
		if got, err := once.OptionsParse(once.Options{Format: once.Unsigned}, s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("unsigned parse(%q) = %v, %v; want ErrInvalid", s, got, err)
		}
	}
}

type maskedDec struct{} // signed, masked, bound to maskBinding

func (maskedDec) Options() once.Options {
	return once.Options{Format: once.Signed, Mask: true, Generator: &maskBinding}
}

// TestMaskedDecimalText: a masked decimal type without a keyring reads "0"
// (the stored value that masks to 0) and no other text that is not a
// canonical decimal.
func TestMaskedDecimalText(t *testing.T) {
	maskBinding.Set(keyFactory(t, testBaseKey, nonce.Blowfish))
	defer maskBinding.Set(nil)
	type dec = once.Typed[maskedDec]
	if id, err := once.ParseAs[dec]("0"); err != nil || id.IsZero() || id.String() != "0" {
		t.Errorf(`ParseAs("0") = %v, %v; want the value that masks to 0`, id, err)
	}
	for _, s := range []string{"x", "+1", "01", "-0", "1x"} {
		if id, err := once.ParseAs[dec](s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAs(%q) = %v, %v; want ErrInvalid", s, id, err)
		}
	}
}

// TestQuoteLength: messages quote up to 40 bytes of the input whole, and
// cut longer input there.
func TestQuoteLength(t *testing.T) {
	for n, want := range map[int]string{40: `"` + strings.Repeat("x", 40) + `": `, 41: `"` + strings.Repeat("x", 40) + `"...: `} {
		_, err := once.Parse(strings.Repeat("x", n))
		if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%d bytes) = %v; want %s", n, err, want)
		}
	}
}

// TestFormatNames: the name of every format, and of the first value past
// the last one.
func TestFormatNames(t *testing.T) {
	for f, want := range []string{"default", "url64", "hex", "hex32", "signed", "unsigned", "raw", "format(7)"} {
		if got := once.Format(f).String(); got != want {
			t.Errorf("Format(%d) = %q, want %q", f, got, want)
		}
	}
}

// TestJSONNumberEdges: JSON numbers for unprefixed decimal types, from the
// digits at the ends of the range ('0' for a masked type, '9'), and input
// that is not JSON (UnmarshalJSON called directly).
func TestJSONNumberEdges(t *testing.T) {
	maskBinding.Set(keyFactory(t, testBaseKey, nonce.Blowfish))
	defer maskBinding.Set(nil)
	var s once.Typed[signedSpec]
	if err := s.UnmarshalJSON([]byte("9223372036854775807")); err != nil || s.Int64() != 1<<63-1 {
		t.Errorf("UnmarshalJSON(2^63-1) = %v, %v", s, err)
	}
	var m once.Typed[maskedDec]
	if err := m.UnmarshalJSON([]byte("0")); err != nil || m.IsZero() || m.String() != "0" {
		t.Errorf("masked UnmarshalJSON(0) = %v, %v; want the value that masks to 0", m, err)
	}
	for _, in := range []string{"", "01", "-0", "1x"} {
		if err := s.UnmarshalJSON([]byte(in)); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("UnmarshalJSON(%q) = %v; want ErrInvalid", in, err)
		}
		if err := m.UnmarshalJSON([]byte(in)); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("masked UnmarshalJSON(%q) = %v; want ErrInvalid", in, err)
		}
	}
}

// TestScanErrorMessages: what Scan says about integers its DB format does
// not take.
func TestScanErrorMessages(t *testing.T) {
	for _, c := range []struct {
		db   once.Format
		src  any
		want string
	}{
		{once.Unsigned, int64(-1), `once: invalid database value "-1": negative, out of range for DB format unsigned`},
		{once.Raw, int64(-1), `once: invalid database value "-1": an integer where DB format raw expects bytes or text`},
		{once.Signed, uint64(1 << 63), `once: invalid database value "9223372036854775808": out of range for DB format signed`},
		{once.Raw, uint64(1 << 63), `once: invalid database value "9223372036854775808": an integer where DB format raw expects bytes or text`},
	} {
		_, err := once.OptionsScan(once.Options{DBFormat: c.db}, c.src)
		if !errors.Is(err, once.ErrInvalid) || err.Error() != c.want {
			t.Errorf("%s Scan(%v) = %v; want %s", c.db, c.src, err, c.want)
		}
	}
	// Text: a persisted prefix, whole or missing, and offsets after it.
	p := once.Options{Prefix: "usr_", PersistPrefix: true, DBFormat: once.URL64}
	for _, c := range []struct {
		o        once.Options
		src, msg string
	}{
		{p, "usr_", "length 0, want 11 (url64) (DB format url64)"},
		{p, "usr_AAAAAAAAAA*", "invalid url64 character '*' at offset 14 (DB format url64)"},
		{p, "usr", `missing persisted prefix "usr_" (DB format url64)`},
		{once.Options{DBFormat: once.Raw}, "abc", "3 bytes, want 8 (DB format raw)"},
		{once.Options{DBFormat: once.Hex}, "abc", "length 3, want 16 (hex) (DB format hex)"},
	} {
		_, err := once.OptionsScan(c.o, c.src)
		if want := "once: invalid database value " + strconv.Quote(c.src) + ": " + c.msg; !errors.Is(err, once.ErrInvalid) || err.Error() != want {
			t.Errorf("Scan(%q) = %v; want %s", c.src, err, want)
		}
	}
}

// TestIDRangeLastMillisecond: a range over the last millisecond of the
// timestamp range holds the last IDs.
func TestIDRangeLastMillisecond(t *testing.T) {
	from := tbEpoch.Add((1<<42 - 1) * time.Millisecond)
	lo, hi, err := once.IDRange[tbUnsignedID](from, tbEnd)
	if err != nil || lo.Uint64() != 1<<64-1<<22 || hi.Uint64() != 1<<64-1 {
		t.Errorf("IDRange(%v, %v) = %#x, %#x, %v", from, tbEnd, lo.Uint64(), hi.Uint64(), err)
	}
}

// TestJSONNumberMessage: a JSON number's message is the canonical
// parser's, for the type's format.
func TestJSONNumberMessage(t *testing.T) {
	var u once.Typed[unsignedSpec]
	want := `once: invalid JSON value "-1": negative, out of range for format unsigned`
	if err := u.UnmarshalJSON([]byte("-1")); !errors.Is(err, once.ErrInvalid) || err.Error() != want {
		t.Errorf("UnmarshalJSON(-1) = %v; want %s", err, want)
	}
}

// TestValueUnsignedTop: for DB format unsigned, 2^63-1 is still sent as an
// int64; from 2^63 on, as decimal text.
func TestValueUnsignedTop(t *testing.T) {
	o := once.Options{DBFormat: once.Unsigned}
	for v, want := range map[uint64]any{1<<63 - 1: int64(1<<63 - 1), 1 << 63: "9223372036854775808"} {
		if got, err := once.OptionsValue(o, once.FromUint64(v)); err != nil || got != want {
			t.Errorf("Value(%d) = %#v, %v; want %#v", v, got, err, want)
		}
	}
}
