package idfield

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/once-go/once/once"
)

func TestPreset(t *testing.T) {
	id := fillID(once.FromUint64(5))
	zero := fillID{}
	for _, c := range []struct {
		name  string
		v     any
		shape Shape
		want  bool
	}{
		{"zero T", &zero, Plain, false},
		{"T", &id, Plain, true},
		{"nil *T", new(*fillID), Pointer, false},
		{"*T to the zero ID", func() any { p := &zero; return &p }(), Pointer, false},
		{"*T", func() any { p := &id; return &p }(), Pointer, true},
		{"invalid sql.Null", &sql.Null[fillID]{V: id}, Null, false},
		{"valid sql.Null of the zero ID", &sql.Null[fillID]{Valid: true}, Null, false},
		{"valid sql.Null", &sql.Null[fillID]{V: id, Valid: true}, Null, true},
	} {
		assert.Equal(t, c.want, Preset(reflect.ValueOf(c.v).Elem(), c.shape), c.name)
	}
}

func TestPresetContext(t *testing.T) {
	assert.False(t, PresetIDs(context.Background()), "background")
	// A nil context (which staticcheck's SA1012 rightly warns against
	// passing) is answered, not a panic.
	var none context.Context
	assert.False(t, PresetIDs(none), "nil")
	assert.True(t, PresetIDs(WithPresetIDs(context.Background())), "marked")
	assert.True(t, PresetIDs(WithPresetIDs(none)), "marked nil")
	p := Context(context.Background())
	assert.False(t, p.Keep(), "Presets of an unmarked context")
	p = Context(WithPresetIDs(context.Background()))
	assert.True(t, p.Keep(), "Presets of a marked context")
	var refuse Presets
	assert.False(t, refuse.Keep(), "zero Presets")
	keep := Keeping()
	assert.True(t, keep.Keep(), "Keeping")
}

func TestPresetMarking(t *testing.T) {
	type row struct {
		Key    fillID  `once:"preset"`
		Ref    *fillID `once:"preset"`
		Plain  fillID
		Manual fillID `once:"manual"`
	}
	rt := reflect.TypeFor[row]()
	key, ref, plain, manual := rt.Field(0), rt.Field(1), rt.Field(2), rt.Field(3)
	assert.True(t, KeepsPreset(key), "Key")
	assert.False(t, KeepsPreset(plain), "Plain")
	_, _, ok := AutoFill(key, true)
	assert.True(t, ok, "a preset sole key is filled")
	_, shape, ok := AutoFill(ref, false)
	assert.True(t, ok && shape == Pointer, "a preset non-key *T is filled")
	_, _, ok = AutoFill(manual, true)
	assert.False(t, ok, "a manual key is not filled")
}

func TestPresetError(t *testing.T) {
	sentinel := errors.New("x: ID set before the insert")
	err := PresetError(sentinel, "x", "User", "ID", "x.WithPresetIDs(ctx)", `the tag once:"preset"`)
	assert.ErrorIs(t, err, sentinel)
	assert.ErrorIs(t, err, once.ErrInvalid)
	assert.Regexp(t, `^x: User\.ID holds an ID set before the insert .*x\.WithPresetIDs\(ctx\).*once:"preset"$`, err.Error())
}
