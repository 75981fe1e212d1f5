package once

import "encoding/binary"

// maxText is the longest spelling of the 64 bits: 20 decimal digits or a
// sign and 19 digits.
const maxText = 20

// appendText appends the text spelling of the stored value v.
func (c *codec) appendText(b []byte, v uint64) ([]byte, error) {
	if c.err != nil {
		return b, c.err
	}
	if c.mask {
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

// marshalText returns the text spelling in a new slice of the right size.
func (c *codec) marshalText(v uint64) ([]byte, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.appendText(make([]byte, 0, len(c.prefix)+maxText), v)
}

// string returns the text spelling, or the error in angle brackets (never
// the stored value of a masked type that cannot be masked).
func (c *codec) string(v uint64) string {
	var buf [48]byte
	b, err := c.appendText(buf[:0], v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Parse parses text per o (prefix, format, mask) and returns the ID with
// the stored value. It is the untyped form of [ParseAs] for options known
// only at run time (tools, adapters); typed IDs should use ParseAs.
func (o Options) Parse(s string) (ID, error) {
	c, err := o.resolve()
	if err != nil {
		return ID{}, err
	}
	v, err := parseText(&c, s)
	return ID{v}, err
}

// AppendText appends the text spelling of id per o to b.
func (o Options) AppendText(b []byte, id ID) ([]byte, error) {
	c, err := o.resolve()
	if err != nil {
		return b, err
	}
	return c.appendText(b, id.v)
}
