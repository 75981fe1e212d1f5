package once

import "database/sql/driver"

// Typed is an ID whose options are declared by its spec type S: a
// zero-size struct type with an Options method. Distinct specs make
// distinct ID types that cannot be mixed up:
//
//	type userSpec struct{}
//
//	func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }
//
//	type UserID = once.Typed[userSpec]
//
// S{}.Options() is called once, on the type's first use; it must return the
// same options every time (bind a factory that is set later through a
// [Binding]). A Typed ID has the layout of [ID] (a struct holding the
// stored 64-bit value; [Typed.Uint64] and [Typed.Int64] read it), the same
// zero value, comparison and methods; it converts to and from ID
// explicitly: once.ID(u), UserID(id). Parse and create typed IDs with
// [ParseAs] and [NewAs].
type Typed[S Spec] struct {
	v uint64
}

// IDType is satisfied by [ID] and every [Typed] ID: the constraint of the
// generic helpers [ParseAs], [MustParseAs] and [NewAs], usable by adapters.
type IDType interface {
	~struct{ v uint64 }
	Options() Options
	options() (Options, error)
}

// ParseAs parses the canonical text of a non-zero ID of type T:
// once.ParseAs[UserID]("usr_M48oJk4HnzE"). One ID has one spelling, what
// its String returns: the exact prefix, then the value (masked when the
// type masks) in the type's Format: url64 (11 characters, zero spare
// bits), lowercase hex (16) or hex32 (13, zero spare bit), or decimal with
// no '+', no leading zero and no "-0", a '-' only for a negative signed
// value, in range for the format. Everything else is an [ErrInvalid]
// error: other formats, upper case, "" and every spelling of 0.
// [Options.ParseAny] reads the other spellings, for tools and migrations.
func ParseAs[T IDType](s string) (T, error) {
	v, err := parseText(codecFor(typeKey[T]()), s)
	return T{v}, err
}

// MustParseAs is like [ParseAs] but panics on error. It is for tests and
// constants.
func MustParseAs[T IDType](s string) T {
	id, err := ParseAs[T](s)
	if err != nil {
		panic(err)
	}
	return id
}

// NewAs returns a new ID of type T drawn from its generator: an error, never
// a zero ID, while none is bound ([ErrNoGenerator]) or the factory holds no
// lease (nonce.ErrDisabled).
func NewAs[T IDType]() (T, error) {
	c := codecFor(typeKey[T]())
	// c.newValue's first lines, written out: the common case, a counter
	// nonce from a bound factory, then costs one call (Counter64) instead
	// of two (BenchmarkNewAsPath: through newValue, NewAs takes 1.2x as
	// long).
	if f := c.counterGen.Factory(); f != nil {
		n, err := f.Counter64()
		if err != nil {
			return T{}, generateError(err)
		}
		if n != 0 {
			return T{n}, nil
		}
	}
	v, err := c.newValueSlow()
	return T{v}, err
}

// options validates the spec and returns its declared options (uncached).
func (Typed[S]) options() (Options, error) {
	var s S
	if err := checkSpec(any(s)); err != nil {
		return Options{}, err
	}
	return s.Options(), nil
}

// Options returns the options that S declares.
func (t Typed[S]) Options() Options { return codecFor(typeKey[Typed[S]]()).opts }

// IsZero reports whether t is the zero ID ("no ID").
func (t Typed[S]) IsZero() bool { return t.v == 0 }

// Uint64 returns the stored value.
func (t Typed[S]) Uint64() uint64 { return t.v }

// Int64 returns the stored value as an int64 (the same 64 bits).
func (t Typed[S]) Int64() int64 { return int64(t.v) }

// String returns the text spelling (prefix, format, mask), "" for the zero
// ID, or the error in angle brackets when the type is misconfigured or
// cannot mask.
func (t Typed[S]) String() string { return codecFor(typeKey[Typed[S]]()).string(t.v) }

// AppendText appends the text spelling to b, nothing for the zero ID. It
// implements [encoding.TextAppender].
func (t Typed[S]) AppendText(b []byte) ([]byte, error) {
	return codecFor(typeKey[Typed[S]]()).appendText(b, t.v)
}

// MarshalText implements [encoding.TextMarshaler]: the text spelling, or
// empty for the zero ID (as [net/netip.Addr] spells its zero value).
func (t Typed[S]) MarshalText() ([]byte, error) {
	return codecFor(typeKey[Typed[S]]()).marshalText(t.v)
}

// UnmarshalText implements [encoding.TextUnmarshaler] like [ParseAs],
// except that empty text is the zero ID.
func (t *Typed[S]) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		if err := codecFor(typeKey[Typed[S]]()).err; err != nil {
			return err
		}
		t.v = 0
		return nil
	}
	v, err := parseText(codecFor(typeKey[Typed[S]]()), text)
	if err != nil {
		return err
	}
	t.v = v
	return nil
}

// MarshalJSON returns the text spelling as a JSON string, "" for the zero
// ID.
func (t Typed[S]) MarshalJSON() ([]byte, error) {
	return codecFor(typeKey[Typed[S]]()).marshalJSON(t.v)
}

// UnmarshalJSON accepts a JSON string spelled as [ParseAs] accepts or ""
// (the zero ID), and a JSON number in the canonical decimal spelling only
// for unprefixed signed/unsigned types. null is an error (use *T for
// nullable fields).
func (t *Typed[S]) UnmarshalJSON(data []byte) error {
	v, err := codecFor(typeKey[Typed[S]]()).unmarshalJSON(data)
	if err != nil {
		return err
	}
	t.v = v
	return nil
}

// Scan implements [database/sql.Scanner], decoding strictly per DBFormat.
// NULL and a stored 0 are errors (use sql.Null[T] or *T for nullable
// columns).
func (t *Typed[S]) Scan(src any) error {
	v, err := codecFor(typeKey[Typed[S]]()).scan(src)
	if err != nil {
		return err
	}
	t.v = v
	return nil
}

// Value implements [database/sql/driver.Valuer] per DBFormat: int64 for
// signed; int64, or the decimal string from 2^63 up, for unsigned; 8 bytes
// for raw; the canonical text for text formats (prefixed when persisted).
// The zero ID has no database value: Value returns an [ErrInvalid] error,
// so an insert with an unfilled ID fails instead of storing 0 or NULL (a
// nullable column takes *T or sql.Null[T], whose NULL never calls Value).
func (t Typed[S]) Value() (driver.Value, error) {
	return codecFor(typeKey[Typed[S]]()).driverValue(t.v)
}

// GormDataType names the column type GORM uses for a field of this type
// when no adapter sets one, by DBFormat: "bigint" (signed), "numeric(20)"
// (unsigned), GORM's "bytes" (raw) or "string" (text formats). Having it
// keeps GORM from taking an ID primary key for an auto-increment integer;
// oncegorm.Register picks the exact type per dialect.
func (t Typed[S]) GormDataType() string { return codecFor(typeKey[Typed[S]]()).gormDataType() }
