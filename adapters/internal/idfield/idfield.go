// Package idfield finds once ID types in struct fields by reflection and
// fills zero IDs with new ones. The ORM adapters share it: the once package
// imports no ORM, so the adapters recognise its ID types by shape (a type of
// package once that reports its Options and converts to once.ID) and cache
// what they learn per type.
package idfield

import (
	"reflect"
	"strings"
	"sync"

	"github.com/once-go/once/once"
)

var (
	idType   = reflect.TypeFor[once.ID]()
	kindType = reflect.TypeFor[once.Spec]()
	oncePkg  = idType.PkgPath()
)

// Type describes one ID type: once.ID or a once.Typed[S].
type Type struct {
	// Type is the ID type itself.
	Type reflect.Type
	// Options are the options the type declares.
	Options once.Options
	// newID is Options.NewFunc's function (nil for invalid options, whose
	// error Options.New returns).
	newID func() (once.ID, error)
}

// New returns a new ID of the type's options, as Options.New does.
func (it *Type) New() (once.ID, error) {
	if it.newID == nil {
		return it.Options.New()
	}
	return it.newID()
}

var types sync.Map // reflect.Type -> *Type (nil for "not an ID type")

// Of reports whether t is an ID type and describes it.
func Of(t reflect.Type) (*Type, bool) {
	if t == nil {
		return nil, false
	}
	if v, ok := types.Load(t); ok {
		it := v.(*Type)
		return it, it != nil
	}
	var it *Type
	if t.Kind() == reflect.Struct && t.PkgPath() == oncePkg && t.Implements(kindType) && t.ConvertibleTo(idType) {
		it = &Type{Type: t, Options: reflect.Zero(t).Interface().(once.Spec).Options()}
		it.newID, _ = it.Options.NewFunc()
	}
	types.Store(t, it)
	return it, it != nil
}

// Shape is how a field holds an ID.
type Shape uint8

// Shapes of ID fields.
const (
	Plain   Shape = iota + 1 // T
	Pointer                  // *T (nullable)
	Null                     // sql.Null[T] (nullable)
)

// Field describes the ID a field of type t holds: the ID type and the shape.
func Field(t reflect.Type) (*Type, Shape, bool) {
	if it, ok := Of(t); ok {
		return it, Plain, true
	}
	if t.Kind() == reflect.Pointer {
		if it, ok := Of(t.Elem()); ok {
			return it, Pointer, true
		}
		return nil, 0, false
	}
	if t.Kind() == reflect.Struct && t.PkgPath() == "database/sql" && strings.HasPrefix(t.Name(), "Null[") && t.NumField() == 2 {
		if it, ok := Of(t.Field(0).Type); ok && t.Field(0).Name == "V" {
			return it, Null, true
		}
	}
	return nil, 0, false
}

// set stores id in v, a settable value of the ID type. An addressable v
// (a struct field reached through a pointer, as the adapters have it) is
// written in place: the ID type converts to once.ID, so both have the same
// memory layout. Otherwise it goes through reflect's conversion, which
// boxes the ID.
func (it *Type) set(v reflect.Value, id once.ID) {
	if v.CanAddr() {
		*(*once.ID)(v.Addr().UnsafePointer()) = id
		return
	}
	v.Set(reflect.ValueOf(id).Convert(it.Type))
}

// Uint64 returns the stored value of v, a value of an ID type, without
// boxing it: every ID type is a struct holding one uint64 (it converts to
// once.ID).
func Uint64(v reflect.Value) uint64 { return v.Field(0).Uint() }

// Fill sets v, a settable field of the given shape, to a new ID when it holds
// none (zero T, nil *T, or an invalid sql.Null[T]). It returns what to reset
// to its zero value to undo that (see [Undo]; invalid when it set nothing).
func (it *Type) Fill(v reflect.Value, shape Shape) (reset reflect.Value, err error) {
	switch shape {
	case Plain:
		if !v.IsZero() {
			return reflect.Value{}, nil
		}
		id, err := it.New()
		if err != nil {
			return reflect.Value{}, err
		}
		it.set(v, id)
		return v, nil
	case Pointer:
		if !v.IsNil() && !v.Elem().IsZero() {
			return reflect.Value{}, nil
		}
		id, err := it.New()
		if err != nil {
			return reflect.Value{}, err
		}
		if v.IsNil() {
			p := reflect.New(it.Type)
			it.set(p.Elem(), id)
			v.Set(p)
			return v, nil
		}
		it.set(v.Elem(), id)
		return v.Elem(), nil
	case Null:
		if v.Field(1).Bool() {
			return reflect.Value{}, nil
		}
		id, err := it.New()
		if err != nil {
			return reflect.Value{}, err
		}
		it.set(v.Field(0), id)
		v.Field(1).SetBool(true)
		return v, nil
	}
	return reflect.Value{}, nil
}

// Undo records what a fill changed, so that a failed insert leaves the
// caller's models as they were: each entry is reset to its zero value.
type Undo []reflect.Value

// Add records reset (an invalid Value, for nothing filled, is ignored).
func (u *Undo) Add(reset reflect.Value) {
	if reset.IsValid() {
		*u = append(*u, reset)
	}
}

// Run undoes everything recorded, newest first.
func (u Undo) Run() {
	for i := len(u) - 1; i >= 0; i-- {
		u[i].SetZero()
	}
}

// Tag is the struct tag key the adapters read: `once:"auto"` marks a
// non-key ID field to fill on insert; `once:"preset"` marks a field to
// fill whose preset IDs inserts keep; `once:"manual"` stops a primary key
// from being filled.
const Tag = "once"

// Marking is what a field's `once` tag says.
type Marking uint8

// Markings.
const (
	Unmarked   Marking = iota
	Auto               // once:"auto"
	Manual             // once:"manual"
	KeepPreset         // once:"preset"
)

// MarkingOf reads the `once` tag of f.
func MarkingOf(f reflect.StructField) Marking {
	switch f.Tag.Get(Tag) {
	case "auto":
		return Auto
	case "manual", "-":
		return Manual
	case "preset":
		return KeepPreset
	}
	return Unmarked
}

// AutoFill reports whether the field sf is an ID field to fill on insert,
// and if so its ID type and shape. soleKey says whether sf is the only
// primary key of its table. A field is filled when it is tagged
// `once:"auto"` or `once:"preset"` (any shape), or when it is an untagged
// sole primary key of shape Plain (composite keys are foreign keys as a
// rule); never when it is tagged `once:"manual"`.
func AutoFill(sf reflect.StructField, soleKey bool) (*Type, Shape, bool) {
	it, shape, ok := Field(sf.Type)
	if !ok {
		return nil, 0, false
	}
	switch MarkingOf(sf) {
	case Auto, KeepPreset:
	case Manual:
		return nil, 0, false
	default:
		if !soleKey || shape != Plain {
			return nil, 0, false
		}
	}
	return it, shape, true
}
