package once

import (
	"strconv"
	"strings"
)

// Format is a spelling of the 64 bits of an ID. The zero Format means the
// option's default: [URL64] for Options.Format, [Signed] for
// Options.DBFormat.
type Format uint8

// Formats. All spell the same 64 bits, big-endian. Raw is for the database
// only.
const (
	URL64    Format = iota + 1 // base64url without padding, 11 chars: "zAjhfZyAAAE"
	Hex                        // lowercase hex, 16 chars: "cc08e17d9c800001"
	Hex32                      // lowercase base32hex (RFC 4648 §7) without padding, 13 chars: "pg4e2vcsg0002"
	Signed                     // decimal int64: "-3744495160545771519"; in the database a bigint
	Unsigned                   // decimal uint64: "14702248913163780097"; in the database BIGINT UNSIGNED
	Raw                        // 8 bytes (database only: bytea, BINARY(8), BLOB)
)

var formatNames = [...]string{"default", "url64", "hex", "hex32", "signed", "unsigned", "raw"}

// String returns the format's name: "url64", "hex", "hex32", "signed",
// "unsigned", "raw", or "default" for the zero Format.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat returns the format named s, as [Format.String] spells it
// (case-insensitive). The empty string and "default" give the zero Format.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return 0, nil
	}
	for i, name := range formatNames {
		if strings.EqualFold(s, name) {
			return Format(i), nil
		}
	}
	return 0, configError("unknown format " + quote(s) + " (want url64, hex, hex32, signed, unsigned or raw)")
}

// isInteger reports whether f is signed or unsigned.
func (f Format) isInteger() bool { return f == Signed || f == Unsigned }

const (
	url64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	hex32Alphabet = "0123456789abcdefghijklmnopqrstuv"
	hexAlphabet   = "0123456789abcdef"
)

// appendFormat appends v spelled in the text or integer format f (never
// Raw or zero: callers resolve defaults first).
func appendFormat(b []byte, f Format, v uint64) []byte {
	switch f {
	case Hex:
		return appendHex(b, v)
	case Hex32:
		return appendHex32(b, v)
	case Signed:
		return strconv.AppendInt(b, int64(v), 10)
	case Unsigned:
		return strconv.AppendUint(b, v, 10)
	}
	return appendURL64(b, v)
}

// appendURL64 appends the 11 base64url characters of v: 64 bits and two
// zero spare bits in the last character.
func appendURL64(b []byte, v uint64) []byte {
	const a = url64Alphabet
	return append(b,
		a[v>>58], a[v>>52&63], a[v>>46&63], a[v>>40&63], a[v>>34&63], a[v>>28&63],
		a[v>>22&63], a[v>>16&63], a[v>>10&63], a[v>>4&63], a[v<<2&63])
}

// url64Len is the length of the URL64 spelling.
const url64Len = 11

// appendHex32 appends the 13 base32hex characters of v: 64 bits and one zero
// spare bit in the last character.
func appendHex32(b []byte, v uint64) []byte {
	const a = hex32Alphabet
	return append(b,
		a[v>>59], a[v>>54&31], a[v>>49&31], a[v>>44&31], a[v>>39&31], a[v>>34&31], a[v>>29&31],
		a[v>>24&31], a[v>>19&31], a[v>>14&31], a[v>>9&31], a[v>>4&31], a[v<<1&31])
}

// appendHex appends the 16 lowercase hex digits of v.
func appendHex(b []byte, v uint64) []byte {
	const a = hexAlphabet
	return append(b,
		a[v>>60], a[v>>56&15], a[v>>52&15], a[v>>48&15], a[v>>44&15], a[v>>40&15], a[v>>36&15], a[v>>32&15],
		a[v>>28&15], a[v>>24&15], a[v>>20&15], a[v>>16&15], a[v>>12&15], a[v>>8&15], a[v>>4&15], a[v&15])
}
