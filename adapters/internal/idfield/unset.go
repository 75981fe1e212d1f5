package idfield

import (
	"reflect"

	"github.com/once-go/once/adapters/internal/configerr"
	"github.com/once-go/once/once"
)

// Unset reports whether v, a field of the given shape, would write the
// zero ID ("no ID"), which has no database value: a zero T, a non-nil *T
// pointing to the zero ID (what encoding/json makes of "" for a *T), or a
// valid sql.Null[T] holding it. A nil *T and an invalid sql.Null[T] are
// NULL, which is fine.
func Unset(v reflect.Value, shape Shape) bool {
	switch shape {
	case Plain:
		return v.IsZero()
	case Pointer:
		return !v.IsNil() && v.Elem().IsZero()
	case Null:
		return v.Field(1).Bool() && v.Field(0).IsZero()
	}
	return false
}

// UnsetError returns the error of adapter package pkg for field model.field
// of the given shape holding the zero ID where a row is written: it
// matches once.ErrInvalid and says what to do instead.
func UnsetError(pkg, model, field string, shape Shape) error {
	switch shape {
	case Pointer:
		return configerr.New(once.ErrInvalid, pkg,
			`%s.%s points to the zero ID (JSON "" decodes so), which has no database value: set it to nil (JSON null) for NULL, or to an ID`,
			model, field)
	case Null:
		return configerr.New(once.ErrInvalid, pkg,
			"%s.%s is a valid sql.Null holding the zero ID, which has no database value: set Valid false for NULL, or V to an ID",
			model, field)
	}
	return configerr.New(once.ErrInvalid, pkg,
		"%s.%s is the zero ID (no ID), which has no database value: set it before the row is written, or make the field a pointer (nil is NULL) if the column is nullable",
		model, field)
}

// Set stores id in v, a settable value of the ID type it.
func (it *Type) Set(v reflect.Value, id once.ID) { it.set(v, id) }
