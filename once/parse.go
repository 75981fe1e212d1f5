package once

import (
	"strconv"
	"strings"
)

// text is the input of the parsers: a string, or bytes from JSON, a text
// unmarshaler or a database driver. Parsing never retains or copies it.
type text interface{ ~string | ~[]byte }

// bad marks a byte outside an alphabet in the decoding tables.
const bad = 0xff

// Decoding tables. The ID types accept only the canonical lowercase hex and
// hex32 (hexDec, hex32Dec); the lenient parser also accepts upper case.
var (
	url64Dec    = decodeTable(url64Alphabet, false)
	hex32Dec    = decodeTable(hex32Alphabet, false)
	hexDec      = decodeTable(hexAlphabet, false)
	hex32DecAny = decodeTable(hex32Alphabet, true)
	hexDecAny   = decodeTable(hexAlphabet, true)
)

// decodeTable maps each byte to its digit value in alphabet, or bad; with
// upper set, upper-case letters decode as their lower-case digits too.
func decodeTable(alphabet string, upper bool) *[256]byte {
	var t [256]byte
	for i := range t {
		t[i] = bad
	}
	for i := 0; i < len(alphabet); i++ {
		c := alphabet[i]
		t[c] = byte(i)
		if upper && c >= 'a' && c <= 'z' {
			t[c-'a'+'A'] = byte(i)
		}
	}
	return &t
}

// The decoders are unrolled with constant shifts so that the table loads
// and ORs run in parallel instead of as one shift-or chain.

// decodeURL64 decodes 11 base64url characters; the two spare bits must be 0.
func decodeURL64[T text](s T) (uint64, bool) {
	if len(s) != 11 {
		return 0, false
	}
	t := url64Dec
	d0, d1, d2, d3, d4, d5 := t[s[0]], t[s[1]], t[s[2]], t[s[3]], t[s[4]], t[s[5]]
	d6, d7, d8, d9, d10 := t[s[6]], t[s[7]], t[s[8]], t[s[9]], t[s[10]]
	if (d0|d1|d2|d3|d4|d5|d6|d7|d8|d9|d10)&0xc0|d10&3 != 0 {
		return 0, false
	}
	hi := uint64(d0)<<58 | uint64(d1)<<52 | uint64(d2)<<46 | uint64(d3)<<40 | uint64(d4)<<34 | uint64(d5)<<28
	lo := uint64(d6)<<22 | uint64(d7)<<16 | uint64(d8)<<10 | uint64(d9)<<4 | uint64(d10)>>2
	return hi | lo, true
}

// decodeHex32 decodes 13 base32hex characters with table t; the spare bit
// must be 0.
func decodeHex32[T text](t *[256]byte, s T) (uint64, bool) {
	if len(s) != 13 {
		return 0, false
	}
	d0, d1, d2, d3, d4, d5, d6 := t[s[0]], t[s[1]], t[s[2]], t[s[3]], t[s[4]], t[s[5]], t[s[6]]
	d7, d8, d9, d10, d11, d12 := t[s[7]], t[s[8]], t[s[9]], t[s[10]], t[s[11]], t[s[12]]
	if (d0|d1|d2|d3|d4|d5|d6|d7|d8|d9|d10|d11|d12)&0xe0|d12&1 != 0 {
		return 0, false
	}
	hi := uint64(d0)<<59 | uint64(d1)<<54 | uint64(d2)<<49 | uint64(d3)<<44 | uint64(d4)<<39 | uint64(d5)<<34 | uint64(d6)<<29
	lo := uint64(d7)<<24 | uint64(d8)<<19 | uint64(d9)<<14 | uint64(d10)<<9 | uint64(d11)<<4 | uint64(d12)>>1
	return hi | lo, true
}

// decodeHex decodes 16 hex digits with table t.
func decodeHex[T text](t *[256]byte, s T) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	d0, d1, d2, d3, d4, d5, d6, d7 := t[s[0]], t[s[1]], t[s[2]], t[s[3]], t[s[4]], t[s[5]], t[s[6]], t[s[7]]
	d8, d9, d10, d11, d12, d13, d14, d15 := t[s[8]], t[s[9]], t[s[10]], t[s[11]], t[s[12]], t[s[13]], t[s[14]], t[s[15]]
	if (d0|d1|d2|d3|d4|d5|d6|d7|d8|d9|d10|d11|d12|d13|d14|d15)&0xf0 != 0 {
		return 0, false
	}
	hi := uint64(d0)<<60 | uint64(d1)<<56 | uint64(d2)<<52 | uint64(d3)<<48 | uint64(d4)<<44 | uint64(d5)<<40 | uint64(d6)<<36 | uint64(d7)<<32
	lo := uint64(d8)<<28 | uint64(d9)<<24 | uint64(d10)<<20 | uint64(d11)<<16 | uint64(d12)<<12 | uint64(d13)<<8 | uint64(d14)<<4 | uint64(d15)
	return hi | lo, true
}

// decodeCanonical decodes s as the one canonical spelling of a value in
// format f (not Raw): url64, lowercase hex or hex32, or decimal for signed
// and unsigned.
func decodeCanonical[T text](f Format, s T) (uint64, bool) {
	switch f {
	case URL64:
		return decodeURL64(s)
	case Hex:
		return decodeHex(hexDec, s)
	case Hex32:
		return decodeHex32(hex32Dec, s)
	}
	return parseCanonical(s, f == Signed)
}

// parseCanonical decodes a canonical, non-zero decimal: digits without a
// leading zero, a leading '-' only when signed, in range for int64 (signed)
// or uint64. "0" has a leading zero by this rule: the zero ID has no
// decimal spelling.
func parseCanonical[T text](s T, signed bool) (uint64, bool) {
	i := 0
	if signed && len(s) > 0 && s[0] == '-' {
		i = 1
	}
	if i == len(s) || s[i] == '0' {
		return 0, false
	}
	v, ok := parseDigits(s[i:])
	switch {
	case !ok:
		return 0, false
	case !signed:
		return v, true
	case i == 1 && v <= 1<<63:
		return -v, true
	case i == 0 && v < 1<<63:
		return v, true
	}
	return 0, false
}

// parseDigits decodes a non-empty run of decimal digits up to 2^64-1.
func parseDigits[T text](s T) (v uint64, ok bool) {
	const cutoff = 1 << 64 / 10 // floor((2^64-1)/10) = 1844674407370955161
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if d > 9 || v >= cutoff && (v > cutoff || d > 5) {
			return 0, false
		}
		v = v*10 + d
	}
	return v, len(s) > 0
}

// parseDecimal decodes any decimal integer in [-2^63, 2^64-1]: an optional
// sign, then digits (leading zeros accepted). Negative values come back in
// two's complement with neg set. It serves the lenient parser and integer
// database columns, whose drivers send their own spellings.
func parseDecimal[T text](s T) (v uint64, neg, ok bool) {
	i := 0
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		i = 1
	}
	if v, ok = parseDigits(s[i:]); !ok {
		return 0, false, false
	}
	if neg {
		if v > 1<<63 {
			return 0, false, false
		}
		v = -v
	}
	return v, neg, true
}

// parseText decodes the canonical text of a non-zero ID per the codec
// (prefix, format, mask) and returns the stored value.
func parseText[T text](c *codec, s T) (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.mask {
		if r := c.gen.Keyring(); r != nil {
			v, _, err := parseRing(c, r, s)
			return v, err
		}
	}
	rest := s
	if p := c.prefix; p != "" {
		if len(s) < len(p) || string(s[:len(p)]) != p {
			return 0, explainText(c, string(s))
		}
		rest = s[len(p):]
	}
	var v uint64
	var ok bool
	switch c.format { // decodeCanonical, written out: it does not inline
	case URL64:
		v, ok = decodeURL64(rest)
	case Hex:
		v, ok = decodeHex(hexDec, rest)
	case Hex32:
		v, ok = decodeHex32(hex32Dec, rest)
	default:
		v, ok = parseCanonical(rest, c.format == Signed)
		// A masked type shows the stored value that masks to 0 as "0".
		ok = ok || c.mask && string(rest) == "0"
	}
	if !ok {
		return 0, explainText(c, string(s))
	}
	if c.mask {
		var err error
		if v, err = c.unmask(v); err != nil {
			return 0, err
		}
	}
	if v == 0 {
		return 0, zeroText(string(s))
	}
	return v, nil
}

// parseAny is the lenient parser (Options.ParseAny): the exact prefix, then
// for signed and unsigned formats any decimal in [-2^63, 2^64-1] (sign and
// leading zeros accepted), otherwise url64, hex32 or hex told apart by
// length, hex and hex32 in either case. Spare bits must be zero. Every
// value parses, 0 included.
func parseAny(c *codec, s string) (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.mask && c.gen.Keyring() != nil {
		id, _, err := c.opts.ParseAnyGeneration(s)
		return id.v, err
	}
	rest, ok := strings.CutPrefix(s, c.prefix)
	if !ok {
		return 0, explainText(c, s)
	}
	var v uint64
	switch {
	case c.format.isInteger():
		v, _, ok = parseDecimal(rest)
	case len(rest) == 11:
		v, ok = decodeURL64(rest)
	case len(rest) == 13:
		v, ok = decodeHex32(hex32DecAny, rest)
	case len(rest) == 16:
		v, ok = decodeHex(hexDecAny, rest)
	default:
		ok = false
	}
	if !ok {
		return 0, explainAny(c, s, rest)
	}
	if c.mask {
		return c.unmask(v)
	}
	return v, nil
}

// zeroText is the error for a non-empty spelling of 0.
func zeroText(in string) error {
	return invalid("ID", in, `spells 0, the zero ID ("no ID"), whose only spelling is ""`)
}

// explainPrefix says what is wrong with the prefix of in, or "".
func explainPrefix(c *codec, in string) string {
	p := c.prefix
	switch {
	case p == "":
		return ""
	case !strings.HasPrefix(in, p):
		if len(in) >= len(p) && strings.EqualFold(in[:len(p)], p) {
			return "prefix in the wrong case, want " + quote(p)
		}
		return "missing prefix " + quote(p)
	case strings.HasPrefix(in[len(p):], p):
		return "prefix " + quote(p) + " repeated"
	}
	return ""
}

// explainText builds the error for text that parseText rejected.
func explainText(c *codec, in string) error {
	if c.mask && c.rotatable {
		if g, _, ok := cutGen(c, in); ok {
			return unknownGeneration(in, g, c.gen.Keyring())
		}
	}
	if msg := explainPrefix(c, in); msg != "" {
		return invalid("ID", in, msg)
	}
	rest := in[len(c.prefix):]
	base := len(c.prefix)
	switch {
	case in == "":
		return invalid("ID", in, `empty (the zero ID's spelling, which parsing rejects; UnmarshalText and UnmarshalJSON accept it)`)
	case rest == "":
		return invalid("ID", in, "nothing after the prefix")
	case c.format.isInteger():
		return invalid("ID", in, explainCanonical(rest, c.format == Signed, base))
	}
	return invalid("ID", in, explainEncoded(c.format, rest, base, false))
}

// explainAny builds the error for text that parseAny rejected.
func explainAny(c *codec, in, rest string) error {
	if msg := explainPrefix(c, in); msg != "" {
		return invalid("ID", in, msg)
	}
	base := len(in) - len(rest)
	if c.format.isInteger() {
		return invalid("ID", in, explainDecimal(rest, base))
	}
	return invalid("ID", in, explainEncoded(0, rest, base, true))
}

// explainCanonical says why parseCanonical rejected s.
func explainCanonical(s string, signed bool, base int) string {
	digits := s
	if signed {
		digits = strings.TrimPrefix(s, "-")
	}
	switch {
	case s == "":
		return "empty, want a decimal integer"
	case s == "0" || s == "-0":
		return `spells 0, the zero ID ("no ID"), whose only spelling is ""`
	case s[0] == '+':
		return "a '+' sign (the canonical spelling has none)"
	case s[0] == '-' && !signed:
		return "negative, out of range for format unsigned"
	case digits == "":
		return "sign without digits"
	}
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; c < '0' || c > '9' {
			return "invalid character " + quoteByte(c) + " at offset " +
				strconv.Itoa(base+len(s)-len(digits)+i) + ", want a decimal integer"
		}
	}
	if digits[0] == '0' {
		return "a leading zero (not the canonical spelling)"
	}
	if signed {
		return "out of range [-2^63, 2^63-1] for format signed"
	}
	return "out of range [0, 2^64-1] for format unsigned"
}

// explainDecimal says why parseDecimal rejected s.
func explainDecimal(s string, base int) string {
	digits := strings.TrimLeft(s, "+-")
	switch {
	case s == "":
		return "empty, want a decimal integer"
	case len(s)-len(digits) > 1:
		return "more than one sign"
	case digits == "":
		return "sign without digits"
	}
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; c < '0' || c > '9' {
			return "invalid character " + quoteByte(c) + " at offset " +
				strconv.Itoa(base+len(s)-len(digits)+i) + ", want a decimal integer"
		}
	}
	return "out of range [-2^63, 2^64-1]"
}

// explainEncoded says why s is not a url64, hex32 or hex spelling; f is the
// one format expected, or 0 for "any, by length"; base is the offset of s
// in the quoted input; anyCase accepts upper-case hex and hex32.
func explainEncoded(f Format, s string, base int, anyCase bool) string {
	if f == 0 {
		switch len(s) {
		case 11:
			f = URL64
		case 13:
			f = Hex32
		case 16:
			f = Hex
		default:
			return "length " + strconv.Itoa(len(s)) + ", want 11 (url64), 13 (hex32) or 16 (hex)"
		}
	}
	var t, lenient *[256]byte
	var n int
	var spare byte
	switch f {
	case URL64:
		t, lenient, n, spare = url64Dec, url64Dec, 11, 3
	case Hex32:
		t, lenient, n, spare = hex32Dec, hex32DecAny, 13, 1
	default:
		t, lenient, n = hexDec, hexDecAny, 16
	}
	if anyCase {
		t = lenient
	}
	if len(s) != n {
		return "length " + strconv.Itoa(len(s)) + ", want " + strconv.Itoa(n) + " (" + f.String() + ")"
	}
	for i := 0; i < len(s); i++ {
		if t[s[i]] == bad {
			if lenient[s[i]] != bad {
				return "upper-case " + quoteByte(s[i]) + " at offset " + strconv.Itoa(base+i) +
					" (the canonical " + f.String() + " spelling is lowercase)"
			}
			return "invalid " + f.String() + " character " + quoteByte(s[i]) + " at offset " + strconv.Itoa(base+i)
		}
	}
	if t[s[n-1]]&spare != 0 {
		return "non-zero spare bits in the last character (not the canonical " + f.String() + " spelling)"
	}
	return `spells 0, the zero ID ("no ID"), whose only spelling is ""`
}

// quoteByte renders one byte of bad input: 'x', or '\xNN' outside ASCII.
func quoteByte(c byte) string {
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return `'\x` + string(hexAlphabet[c>>4]) + string(hexAlphabet[c&15]) + `'`
}
