package once

import "database/sql/driver"

// ID is a 64-bit database ID with the package defaults: url64 text, no
// prefix, no mask, a signed bigint in the database, counter nonces from the
// default generator. Use [Typed] for other options.
//
// The zero ID means "no ID" ([ID.IsZero]). IDs are comparable and usable as
// map keys; they compare by the stored value. ID and every Typed[K] convert
// to each other with explicit Go conversions: once.ID(u), UserID(id).
type ID struct {
	v uint64
}

// FromUint64 returns the ID whose stored value is v.
func FromUint64(v uint64) ID { return ID{v} }

// FromInt64 returns the ID whose stored value is v (the same 64 bits).
func FromInt64(v int64) ID { return ID{uint64(v)} }

// Parse parses an ID spelled in url64 (11 chars), hex32 (13) or hex (16),
// told apart by length; hex and hex32 in either case. Non-canonical
// spellings (non-zero spare bits) and decimal text are rejected with
// [ErrInvalid].
func Parse(s string) (ID, error) {
	v, ok := decodeByLength(s)
	if !ok {
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

// String returns the canonical url64 spelling: 11 characters.
func (id ID) String() string {
	var b [11]byte
	return string(appendURL64(b[:0], id.v))
}

// AppendText appends the canonical url64 spelling to b. It implements
// [encoding.TextAppender] and never fails.
func (id ID) AppendText(b []byte) ([]byte, error) { return appendURL64(b, id.v), nil }

// MarshalText implements [encoding.TextMarshaler].
func (id ID) MarshalText() ([]byte, error) { return appendURL64(make([]byte, 0, 11), id.v), nil }

// UnmarshalText implements [encoding.TextUnmarshaler] like [Parse].
func (id *ID) UnmarshalText(text []byte) error {
	v, ok := decodeByLength(text)
	if !ok {
		return explainText(&plain, string(text))
	}
	id.v = v
	return nil
}

// MarshalJSON returns the url64 spelling as a JSON string.
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 13)
	b = append(b, '"')
	b = appendURL64(b, id.v)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts a JSON string as [Parse] does. JSON numbers and null
// are errors (use *ID or sql.Null[ID] for nullable fields).
func (id *ID) UnmarshalJSON(data []byte) error {
	v, err := plain.unmarshalJSON(data)
	if err != nil {
		return err
	}
	id.v = v
	return nil
}

// Scan implements [database/sql.Scanner] for a bigint column: int64, or
// decimal digits as []byte or string. NULL is an error (use sql.Null[ID] or
// *ID for nullable columns).
func (id *ID) Scan(src any) error {
	if v, ok := src.(int64); ok {
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
// int64 for a bigint column.
func (id ID) Value() (driver.Value, error) { return int64(id.v), nil }
