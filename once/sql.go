package once

import (
	"database/sql/driver"
	"math"
	"reflect"
	"strconv"
)

// errNull is the error for NULL into an ID.
var errNull = &idError{kind: ErrInvalid,
	msg: "once: invalid database value NULL: use sql.Null[T] or *T for nullable columns"}

// errZeroValue is the error of Value for the zero ID: storing 0 would read
// back as no ID, and NULL into a primary key is an error or (SQLite) a
// key the database picks.
var errZeroValue = &idError{kind: ErrInvalid,
	msg: `once: the zero ID ("no ID") has no database value: set the ID before the insert (once.New, once.NewAs, an adapter), or use *T or sql.Null[T] for a nullable column`}

// errZeroStored is the error of Scan for a stored 0.
var errZeroStored = &idError{kind: ErrInvalid,
	msg: `once: invalid database value 0: the zero ID ("no ID") is never stored`}

// value returns the database form of the stored value v per the DB format:
// an int64 in i (other nil) for signed and unsigned below 2^63, else other.
// Callers box i themselves, so that an inlined Value that does not escape
// allocates nothing.
func (c *codec) value(v uint64) (i int64, other driver.Value, err error) {
	if c.err != nil {
		return 0, nil, c.err
	}
	if v == 0 {
		return 0, nil, errZeroValue
	}
	switch c.db {
	case Signed:
		return int64(v), nil, nil
	case Unsigned:
		if v <= math.MaxInt64 {
			return int64(v), nil, nil
		}
		// A uint64 with the top bit set is not a valid driver.Value, and a
		// negative int64 must never reach a BIGINT UNSIGNED column: send
		// the decimal text, which MySQL/MariaDB convert exactly.
		return 0, strconv.FormatUint(v, 10), nil
	case Raw:
		b := make([]byte, 0, len(c.prefix)+8)
		if c.persist {
			b = append(b, c.prefix...)
		}
		return 0, append(b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32),
			byte(v>>24), byte(v>>16), byte(v>>8), byte(v)), nil
	}
	var buf [64]byte
	b := buf[:0]
	if c.persist {
		b = append(b, c.prefix...)
	}
	return 0, string(appendFormat(b, c.db, v)), nil
}

// driverValue boxes the result of value.
func (c *codec) driverValue(v uint64) (driver.Value, error) {
	i, other, err := c.value(v)
	if other == nil && err == nil {
		return i, nil
	}
	return other, err
}

// scan decodes a database value strictly per the DB format. It accepts
// what drivers return for that column type: int64 (all drivers), uint64
// (go-sql-driver/mysql, BIGINT UNSIGNED, text protocol), ASCII digits in
// []byte (MySQL text protocol, or binary protocol above 2^63-1) or string
// (PostgreSQL numeric), bytes or string for raw and text columns.
func (c *codec) scan(src any) (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	switch s := src.(type) {
	case int64:
		if s == 0 {
			return 0, errZeroStored
		}
		if c.db == Signed || c.db == Unsigned && s > 0 {
			return uint64(s), nil
		}
	case uint64:
		if s == 0 {
			return 0, errZeroStored
		}
		if c.db == Unsigned || c.db == Signed && s <= math.MaxInt64 {
			return s, nil
		}
	case []byte:
		return scanBytes(c, s)
	case string:
		return scanBytes(c, s)
	case nil:
		return 0, errNull
	}
	return 0, scanError(c, src)
}

// scanBytes decodes a []byte or string column value: decimal digits as the
// drivers send them for integer columns, the canonical spelling for text
// columns, 8 bytes for raw ones. A stored 0 is an error.
func scanBytes[T text](c *codec, s T) (uint64, error) {
	switch c.db {
	case Signed, Unsigned:
		v, neg, ok := parseDecimal(s)
		if ok && v == 0 {
			return 0, errZeroStored
		}
		if ok && (c.db == Signed && (neg || v <= math.MaxInt64) || c.db == Unsigned && !neg) {
			return v, nil
		}
		return 0, scanError(c, string(s))
	}
	rest := s
	if c.persist {
		p := c.prefix
		if len(s) < len(p) || string(s[:len(p)]) != p {
			return 0, scanError(c, string(s))
		}
		rest = s[len(p):]
	}
	var v uint64
	var ok bool
	if c.db == Raw {
		if len(rest) != 8 {
			return 0, scanError(c, string(s))
		}
		v = uint64(rest[0])<<56 | uint64(rest[1])<<48 | uint64(rest[2])<<40 | uint64(rest[3])<<32 |
			uint64(rest[4])<<24 | uint64(rest[5])<<16 | uint64(rest[6])<<8 | uint64(rest[7])
	} else if v, ok = decodeCanonical(c.db, rest); !ok {
		return 0, scanError(c, string(s))
	}
	if v == 0 {
		return 0, errZeroStored
	}
	return v, nil
}

// scanError explains why scan rejected src.
func scanError(c *codec, src any) error {
	const what = "database value"
	db := c.db.String()
	switch s := src.(type) {
	case int64:
		if c.db == Unsigned {
			return invalid(what, strconv.FormatInt(s, 10), "negative, out of range for DB format unsigned")
		}
		return invalid(what, strconv.FormatInt(s, 10), "an integer where DB format "+db+" expects bytes or text")
	case uint64:
		if c.db == Signed {
			return invalid(what, strconv.FormatUint(s, 10), "out of range for DB format signed")
		}
		return invalid(what, strconv.FormatUint(s, 10), "an integer where DB format "+db+" expects bytes or text")
	case string:
		switch {
		case c.db.isInteger():
			if _, _, ok := parseDecimal(s); ok {
				return invalid(what, s, "out of range for DB format "+db)
			}
			return invalid(what, s, explainDecimal(s, 0)+" (DB format "+db+")")
		case c.persist && !hasPrefix(s, c.prefix):
			return invalid(what, s, "missing persisted prefix "+quote(c.prefix)+" (DB format "+db+")")
		}
		rest := s
		if c.persist {
			rest = s[len(c.prefix):]
		}
		if c.db == Raw {
			return invalid(what, s, strconv.Itoa(len(rest))+" bytes, want 8 (DB format raw)")
		}
		return invalid(what, s, explainEncoded(c.db, rest, len(s)-len(rest), false)+" (DB format "+db+")")
	}
	return &idError{kind: ErrInvalid, msg: "once: invalid database value of type " +
		reflect.TypeOf(src).String() + ": unsupported for DB format " + db}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// gormDataType is Typed.GormDataType: a column type that every GORM
// dialect accepts for the DB format ("" for a misconfigured type, which
// GORM reports as an unsupported data type).
func (c *codec) gormDataType() string {
	switch {
	case c.err != nil:
		return ""
	case c.db == Signed:
		return "bigint"
	case c.db == Unsigned:
		return "numeric(20)"
	case c.db == Raw:
		return "bytes"
	}
	return "string"
}
