package once

import (
	"bytes"
	"encoding/json"
)

// errJSONNull is the error for JSON null into an ID.
var errJSONNull = invalid("JSON value", "null", "null is not an ID (use *T for nullable fields)")

// marshalJSON spells v as a JSON string, always (numbers lose precision in
// JavaScript above 2^53); the zero ID is "".
func (c *codec) marshalJSON(v uint64) ([]byte, error) {
	if c.err != nil {
		return nil, c.err
	}
	if v == 0 {
		return []byte(`""`), nil
	}
	if c.mask {
		if r := c.gen.Keyring(); r != nil && r.cur.gen != 1 {
			// A generation prefix needs no JSON escape (genPrefixable).
			b := append(make([]byte, 0, len(c.prefix)+4+maxText+2), '"')
			b, err := c.appendGen(b, r.cur, v)
			if err != nil {
				return nil, err
			}
			return append(b, '"'), nil
		}
		m, err := c.maskValue(v)
		if err != nil {
			return nil, err
		}
		v = m
	}
	b := make([]byte, 0, len(c.jsonPrefix)+maxText+2)
	b = append(b, '"')
	b = append(b, c.jsonPrefix...)
	b = appendFormat(b, c.format, v)
	return append(b, '"'), nil
}

// unmarshalJSON accepts a JSON string spelled as parseText accepts or ""
// (the zero ID), and a JSON number in the canonical decimal spelling only
// for unprefixed signed/unsigned types.
func (c *codec) unmarshalJSON(data []byte) (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	if n := len(data); n >= 2 && data[0] == '"' && data[n-1] == '"' {
		s := data[1 : n-1]
		if len(s) == 0 {
			return 0, nil
		}
		if bytes.IndexByte(s, '\\') < 0 {
			return parseText(c, s)
		}
		var str string // escapes: let encoding/json decode them (rare)
		if err := json.Unmarshal(data, &str); err != nil {
			return 0, invalid("JSON value", string(data), "not a valid JSON string")
		}
		if str == "" {
			return 0, nil
		}
		return parseText(c, str)
	}
	if string(data) == "null" {
		return 0, errJSONNull
	}
	if len(data) > 0 && (data[0] == '-' || data[0] >= '0' && data[0] <= '9') {
		if c.prefix != "" || !c.format.isInteger() {
			return 0, invalid("JSON value", string(data),
				"a JSON number; this ID type is spelled as a JSON string (numbers only for unprefixed signed/unsigned types)")
		}
		v, ok := parseCanonical(data, c.format == Signed)
		ok = ok || c.mask && string(data) == "0" // the masked spelling of the stored value that masks to 0
		if !ok {
			return 0, invalid("JSON value", string(data), explainCanonical(string(data), c.format == Signed, 0))
		}
		if c.mask {
			var err error
			if v, err = c.unmask(v); err != nil {
				return 0, err
			}
			if v == 0 {
				return 0, zeroText(string(data))
			}
		}
		return v, nil
	}
	return 0, invalid("JSON value", string(data), "want a JSON string")
}
