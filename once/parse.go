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

var (
	url64Dec = decodeTable(url64Alphabet)
	hex32Dec = decodeTable(hex32Alphabet)
	hexDec   = decodeTable(hexAlphabet)
)

// decodeTable maps each byte to its digit value in alphabet, or bad. Letters
// of the lowercase alphabets (hex, hex32) also decode in upper case.
func decodeTable(alphabet string) *[256]byte {
	var t [256]byte
	for i := range t {
		t[i] = bad
	}
	lower := alphabet != url64Alphabet
	for i := 0; i < len(alphabet); i++ {
		c := alphabet[i]
		t[c] = byte(i)
		if lower && c >= 'a' && c <= 'z' {
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

// decodeHex32 decodes 13 base32hex characters (either case); the spare bit
// must be 0.
func decodeHex32[T text](s T) (uint64, bool) {
	if len(s) != 13 {
		return 0, false
	}
	t := hex32Dec
	d0, d1, d2, d3, d4, d5, d6 := t[s[0]], t[s[1]], t[s[2]], t[s[3]], t[s[4]], t[s[5]], t[s[6]]
	d7, d8, d9, d10, d11, d12 := t[s[7]], t[s[8]], t[s[9]], t[s[10]], t[s[11]], t[s[12]]
	if (d0|d1|d2|d3|d4|d5|d6|d7|d8|d9|d10|d11|d12)&0xe0|d12&1 != 0 {
		return 0, false
	}
	hi := uint64(d0)<<59 | uint64(d1)<<54 | uint64(d2)<<49 | uint64(d3)<<44 | uint64(d4)<<39 | uint64(d5)<<34 | uint64(d6)<<29
	lo := uint64(d7)<<24 | uint64(d8)<<19 | uint64(d9)<<14 | uint64(d10)<<9 | uint64(d11)<<4 | uint64(d12)>>1
	return hi | lo, true
}

// decodeHex decodes 16 hex digits (either case).
func decodeHex[T text](s T) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	t := hexDec
	d0, d1, d2, d3, d4, d5, d6, d7 := t[s[0]], t[s[1]], t[s[2]], t[s[3]], t[s[4]], t[s[5]], t[s[6]], t[s[7]]
	d8, d9, d10, d11, d12, d13, d14, d15 := t[s[8]], t[s[9]], t[s[10]], t[s[11]], t[s[12]], t[s[13]], t[s[14]], t[s[15]]
	if (d0|d1|d2|d3|d4|d5|d6|d7|d8|d9|d10|d11|d12|d13|d14|d15)&0xf0 != 0 {
		return 0, false
	}
	hi := uint64(d0)<<60 | uint64(d1)<<56 | uint64(d2)<<52 | uint64(d3)<<48 | uint64(d4)<<44 | uint64(d5)<<40 | uint64(d6)<<36 | uint64(d7)<<32
	lo := uint64(d8)<<28 | uint64(d9)<<24 | uint64(d10)<<20 | uint64(d11)<<16 | uint64(d12)<<12 | uint64(d13)<<8 | uint64(d14)<<4 | uint64(d15)
	return hi | lo, true
}

// decodeFormat decodes s strictly in the text format f (DB text columns).
func decodeFormat[T text](f Format, s T) (uint64, bool) {
	switch f {
	case URL64:
		return decodeURL64(s)
	case Hex32:
		return decodeHex32(s)
	case Hex:
		return decodeHex(s)
	}
	return 0, false
}

// decodeByLength decodes s as url64, hex32 or hex according to its length.
func decodeByLength[T text](s T) (uint64, bool) {
	switch len(s) {
	case 11:
		return decodeURL64(s)
	case 13:
		return decodeHex32(s)
	case 16:
		return decodeHex(s)
	}
	return 0, false
}

// parseDecimal decodes a decimal integer in [-2^63, 2^64-1]: an optional
// sign, then digits (leading zeros accepted). Negative values come back in
// two's complement with neg set.
func parseDecimal[T text](s T) (v uint64, neg, ok bool) {
	i := 0
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		i = 1
	}
	if i == len(s) {
		return 0, false, false
	}
	const cutoff = 1 << 64 / 10 // floor((2^64-1)/10) = 1844674407370955161
	for ; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if d > 9 {
			return 0, false, false
		}
		if v >= cutoff && (v > cutoff || d > 5) {
			return 0, false, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false, false
		}
		v = -v
	}
	return v, neg, true
}

// parseText decodes text per the codec (prefix, app format, mask) and
// returns the stored value.
func parseText[T text](c *codec, s T) (uint64, error) {
	if c.err != nil {
		return 0, c.err
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
	switch {
	case c.format.isInteger():
		v, _, ok = parseDecimal(rest)
	case len(rest) == 11:
		v, ok = decodeURL64(rest)
	case len(rest) == 13:
		v, ok = decodeHex32(rest)
	case len(rest) == 16:
		v, ok = decodeHex(rest)
	}
	if !ok {
		return 0, explainText(c, string(s))
	}
	if c.mask {
		return c.unmask(v)
	}
	return v, nil
}

// explainText builds the error for text that parseText rejected.
func explainText(c *codec, in string) error {
	rest := in
	if p := c.prefix; p != "" {
		if !strings.HasPrefix(in, p) {
			if len(in) >= len(p) && strings.EqualFold(in[:len(p)], p) {
				return invalid("ID", in, "prefix in the wrong case, want "+quote(p))
			}
			return invalid("ID", in, "missing prefix "+quote(p))
		}
		rest = in[len(p):]
		if strings.HasPrefix(rest, p) {
			return invalid("ID", in, "prefix "+quote(p)+" repeated")
		}
	} else if rest == "" {
		return invalid("ID", in, "empty")
	}
	if c.format.isInteger() {
		return invalid("ID", in, explainDecimal(rest, len(in)-len(rest)))
	}
	return invalid("ID", in, explainEncoded(0, rest, len(in)-len(rest)))
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
// one format expected (DB columns) or 0 for "any, by length"; base is the
// offset of s in the quoted input.
func explainEncoded(f Format, s string, base int) string {
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
	var t *[256]byte
	var n int
	var spare byte
	switch f {
	case URL64:
		t, n, spare = url64Dec, 11, 3
	case Hex32:
		t, n, spare = hex32Dec, 13, 1
	default:
		t, n = hexDec, 16
	}
	if len(s) != n {
		return "length " + strconv.Itoa(len(s)) + ", want " + strconv.Itoa(n) + " (" + f.String() + ")"
	}
	for i := 0; i < len(s); i++ {
		if t[s[i]] == bad {
			return "invalid " + f.String() + " character " + quoteByte(s[i]) + " at offset " + strconv.Itoa(base+i)
		}
	}
	if t[s[n-1]]&spare != 0 {
		return "non-zero spare bits in the last character (not the canonical " + f.String() + " spelling)"
	}
	return "not a valid " + f.String() + " spelling"
}

// quoteByte renders one byte of bad input: 'x', or '\xNN' outside ASCII.
func quoteByte(c byte) string {
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	return `'\x` + string(hexAlphabet[c>>4]) + string(hexAlphabet[c&15]) + `'`
}
