package once

import "encoding/binary"

// maxText is the longest spelling of the 64 bits: 20 decimal digits or a
// sign and 19 digits.
const maxText = 20

// appendText appends the text spelling of the stored value v of an ID:
// nothing for the zero ID.
func (c *codec) appendText(b []byte, v uint64) ([]byte, error) {
	if c.err != nil {
		return b, c.err
	}
	if v == 0 {
		return b, nil
	}
	if c.mask {
		if r := c.gen.Keyring(); r != nil && r.cur.gen != 1 {
			return c.appendGen(b, r.cur, v)
		}
		m, err := c.maskValue(v)
		if err != nil {
			return b, err
		}
		v = m
	}
	if c.format == URL64 && c.short {
		if n := len(b); cap(b)-n >= 8+url64Len {
			// One 8-byte store for the prefix (what follows it is
			// overwritten), then the 11 characters.
			t := b[n : n+8+url64Len]
			binary.LittleEndian.PutUint64(t, c.pword)
			u := (*[url64Len]byte)(t[len(c.prefix):])
			const a = url64Alphabet // putURL64, written out: it does not inline
			u[0], u[1], u[2], u[3] = a[v>>58], a[v>>52&63], a[v>>46&63], a[v>>40&63]
			u[4], u[5], u[6], u[7] = a[v>>34&63], a[v>>28&63], a[v>>22&63], a[v>>16&63]
			u[8], u[9], u[10] = a[v>>10&63], a[v>>4&63], a[v<<2&63]
			return b[:n+len(c.prefix)+url64Len], nil
		}
	}
	b = append(b, c.prefix...)
	return appendFormat(b, c.format, v), nil
}

// marshalText returns the text spelling in a new slice of the right size
// (empty for the zero ID).
func (c *codec) marshalText(v uint64) ([]byte, error) {
	if c.err != nil {
		return nil, c.err
	}
	if v == 0 {
		return []byte{}, nil
	}
	return c.appendText(make([]byte, 0, len(c.prefix)+maxText), v)
}

// string returns the text spelling ("" for the zero ID), or the error in
// angle brackets (never the stored value of a masked type that cannot be
// masked).
func (c *codec) string(v uint64) string {
	var buf [48]byte
	b, err := c.appendText(buf[:0], v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// ParseAny is the lenient parser for tools and data migrations: it accepts
// every spelling of a value that the Elixir library's cast accepts, and
// the value 0. After the exact prefix of o, a signed or unsigned Format
// reads any decimal integer in [-2^63, 2^64-1] (a leading '+' or '-' and
// leading zeros allowed; values from 2^63 up and negative values are the
// same 64 bits); every other Format reads url64, hex32 or hex told apart by
// length (11, 13, 16 characters), hex and hex32 in either case, with zero
// spare bits. A masked o unmasks the value. Errors match [ErrInvalid] (or
// [ErrConfig], [ErrNoGenerator]).
//
// The ID types' own parsers ([ParseAs], [Parse], UnmarshalText,
// UnmarshalJSON) accept only the one canonical spelling of each non-zero
// ID; [Options.AppendText] writes it.
func (o Options) ParseAny(s string) (ID, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, err
	}
	v, err := parseAny(&c, s)
	if err != nil {
		return ID{}, err
	}
	return ID{v}, nil
}

// AppendText appends the canonical spelling of id per o to b: the prefix,
// then the value (masked when o.Mask) in o.Format. It spells every value,
// 0 included, as tools converting values need; an ID type's own AppendText,
// MarshalText and MarshalJSON spell the zero ID as "".
func (o Options) AppendText(b []byte, id ID) ([]byte, error) {
	c, err := o.resolve()
	if err != nil {
		return b, err
	}
	if id.v != 0 {
		return c.appendText(b, id.v)
	}
	var v uint64
	if c.mask {
		if r := c.gen.Keyring(); r != nil {
			return c.appendGen(b, r.cur, 0)
		}
		if v, err = c.maskValue(0); err != nil {
			return b, err
		}
	}
	return appendFormat(append(b, c.prefix...), c.format, v), nil
}
