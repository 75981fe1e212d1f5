package once

import "database/sql/driver"

// ID is a 64-bit database ID with the package defaults: url64 text, no
// prefix, no mask, a signed bigint in the database, counter nonces from the
// default generator. Use [Typed] for other options.
//
// The zero ID means "no ID" ([ID.IsZero]). IDs are comparable and usable as
// map keys; they compare by the stored value. ID and every Typed[S] convert
// to each other with explicit Go conversions: once.ID(u), UserID(id).
type ID struct {
	v uint64
}

// FromUint64 returns the ID whose stored value is v.
func FromUint64(v uint64) ID { return ID{v} }

// FromInt64 returns the ID whose stored value is v (the same 64 bits).
func FromInt64(v int64) ID { return ID{uint64(v)} }

// Parse parses the canonical url64 spelling of a non-zero ID: 11
// characters of base64url with zero spare bits. Any other text, "" and the
// spelling of 0 included, is an [ErrInvalid] error ([Options.ParseAny]
// reads other spellings).
func Parse(s string) (ID, error) {
	v, ok := decodeURL64(s)
	if !ok || v == 0 {
		return ID{}, explainText(&plain, s)
	}
	return ID{v}, nil
}

// MustParse is like [Parse] but panics on error. It is for tests and
// constants.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// IsZero reports whether id is the zero ID ("no ID").
func (id ID) IsZero() bool { return id.v == 0 }

// Uint64 returns the stored value.
func (id ID) Uint64() uint64 { return id.v }

// Int64 returns the stored value as an int64 (the same 64 bits), as a
// bigint column holds it.
func (id ID) Int64() int64 { return int64(id.v) }

// Options returns the zero Options: ID uses the package defaults.
func (ID) Options() Options { return Options{} }

func (ID) options() (Options, error) { return Options{}, nil }

// String returns the canonical url64 spelling (11 characters), or "" for
// the zero ID.
func (id ID) String() string {
	if id.v == 0 {
		return ""
	}
	var b [11]byte
	return string(appendURL64(b[:0], id.v))
}

// AppendText appends the canonical url64 spelling to b, nothing for the
// zero ID. It implements [encoding.TextAppender] and never fails.
func (id ID) AppendText(b []byte) ([]byte, error) {
	if id.v == 0 {
		return b, nil
	}
	return appendURL64(b, id.v), nil
}

// MarshalText implements [encoding.TextMarshaler]: the url64 spelling, or
// empty for the zero ID.
func (id ID) MarshalText() ([]byte, error) {
	if id.v == 0 {
		return []byte{}, nil
	}
	return appendURL64(make([]byte, 0, 11), id.v), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] like [Parse], except
// that empty text is the zero ID.
func (id *ID) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		id.v = 0
		return nil
	}
	v, ok := decodeURL64(text)
	if !ok || v == 0 {
		return explainText(&plain, string(text))
	}
	id.v = v
	return nil
}

// MarshalJSON returns the url64 spelling as a JSON string, "" for the zero
// ID.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.v == 0 {
		return []byte(`""`), nil
	}
	b := make([]byte, 0, 13)
	b = append(b, '"')
	b = appendURL64(b, id.v)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts a JSON string as [ID.UnmarshalText] does ("" is the
// zero ID). JSON numbers and null are errors (use *ID for nullable fields).
func (id *ID) UnmarshalJSON(data []byte) error {
	v, err := plain.unmarshalJSON(data)
	if err != nil {
		return err
	}
	id.v = v
	return nil
}

// Scan implements [database/sql.Scanner] for a bigint column: a non-zero
// int64, or its decimal digits as []byte or string. NULL and 0 are errors
// (use sql.Null[ID] or *ID for nullable columns).
func (id *ID) Scan(src any) error {
	if v, ok := src.(int64); ok && v != 0 {
		id.v = uint64(v)
		return nil
	}
	v, err := plain.scan(src)
	if err != nil {
		return err
	}
	id.v = v
	return nil
}

// Value implements [database/sql/driver.Valuer]: the stored value as an
// int64 for a bigint column. The zero ID has no database value: Value
// returns an [ErrInvalid] error, so an insert with an unfilled ID fails
// (a nullable column takes *ID or sql.Null[ID], whose NULL never calls
// Value).
func (id ID) Value() (driver.Value, error) {
	if id.v == 0 {
		return nil, errZeroValue
	}
	return int64(id.v), nil
}

// GormDataType names the column type GORM uses for an ID field when no
// adapter sets one: "bigint". Having it keeps GORM from taking an ID
// primary key for an auto-increment integer (oncegorm.Register picks the
// type per dialect).
func (ID) GormDataType() string { return "bigint" }
