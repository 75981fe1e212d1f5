package idfield

import (
	"context"
	"reflect"

	"github.com/once-go/once/adapters/internal/configerr"
	"github.com/once-go/once/once"
)

// An insert through the adapters makes the IDs of the fields it fills
// (see [AutoFill]). An ID such a field holds before the insert (a preset
// ID) is what decoding a client's request body into the model leaves
// there, so the adapters refuse it unless the insert or the field opts
// in: the insert's context through [WithPresetIDs], the field through the
// tag `once:"preset"` (ent: its mixin's PresetIDs).

// presetKey is the context key of [WithPresetIDs]: one key for every
// adapter, so that a context marked through any adapter package serves
// all of them.
type presetKey struct{}

// WithPresetIDs returns a copy of ctx under which inserts keep preset IDs
// (a nil ctx counts as context.Background()).
func WithPresetIDs(ctx context.Context) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, presetKey{}, true)
}

// PresetIDs reports whether ctx comes from [WithPresetIDs].
func PresetIDs(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	keep, _ := ctx.Value(presetKey{}).(bool)
	return keep
}

// KeepsPreset reports whether the field sf opts in to preset IDs
// (`once:"preset"`).
func KeepsPreset(sf reflect.StructField) bool { return MarkingOf(sf) == KeepPreset }

// Preset reports whether v, a field of the given shape that an insert
// fills, holds an ID set before the insert: a non-zero T, a *T pointing to
// a non-zero ID, or a valid sql.Null[T] holding one. (An insert fills a
// zero T, a nil *T, a *T pointing to the zero ID and an invalid
// sql.Null[T].)
func Preset(v reflect.Value, shape Shape) bool {
	switch shape {
	case Plain:
		return !v.IsZero()
	case Pointer:
		return !v.IsNil() && !v.Elem().IsZero()
	case Null:
		return v.Field(1).Bool() && !v.Field(0).IsZero()
	}
	return false
}

// PresetError returns the error of adapter package pkg for field
// model.field holding a preset ID where neither the insert nor the field
// opts in: it matches sentinel (the package's ErrPresetID) and
// once.ErrInvalid (the row's ID is the caller's mistake, an API's 400).
// perInsert and perModel name the package's switches.
func PresetError(sentinel error, pkg, model, field, perInsert, perModel string) error {
	return configerr.NewIs([]error{sentinel, once.ErrInvalid}, pkg,
		`%s.%s holds an ID set before the insert (such as an "id" a client sent), and inserts make their own IDs: `+
			`leave it unset (decode requests into a struct without the ID), or keep preset IDs for this insert with %s or for the model with %s`,
		model, field, perInsert, perModel)
}

// Presets decides, for the rows of one insert, whether a preset ID in a
// field to fill is kept or refused. The zero value refuses; Context
// derives the answer from the insert's context, reading it only when a
// preset ID is found.
type Presets struct {
	ctx     context.Context
	checked bool
	keep    bool
}

// Context returns the Presets of an insert under ctx.
func Context(ctx context.Context) Presets { return Presets{ctx: ctx} }

// Keeping returns Presets that keep preset IDs, for a statement that
// inserts nothing (an UPDATE whose key names the row).
func Keeping() Presets { return Presets{checked: true, keep: true} }

// Keep reports whether the insert keeps preset IDs.
func (p *Presets) Keep() bool {
	if !p.checked {
		p.keep, p.checked = PresetIDs(p.ctx), true
	}
	return p.keep
}
