package oncebun

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// Register prepares the tables of models (pointers to structs, e.g.
// (*User)(nil)) on db: column types for ID fields, and NULL as the zero ID
// for `nullzero` ID fields. It also adds to db (once) the query hook that
// reads upserts' keys back (see the package documentation). Many-to-many join models are registered with
// db.RegisterModel as usual; pass them here too. Call it at start-up,
// before the models are used: [BeforeAppendModel] and [Fill] refuse models
// with ID fields that db has not registered. A nil db or model is
// [ErrConfig].
func Register(db *bun.DB, models ...any) error {
	if db == nil {
		return configError("Register: db is nil")
	}
	d := idfield.DialectOf(db.Dialect().Name().String())
	if d == 0 {
		return configError("unsupported dialect %s", db.Dialect().Name())
	}
	if !hasHook(db, theKeyHook) {
		// WithQueryHook returns a copy of db with the hook (a bun.DB is a
		// small value around state its copies share); *db becomes that
		// copy, so the caller's db runs the hook.
		*db = *db.WithQueryHook(theKeyHook)
	}
	for i, m := range models {
		t := reflect.TypeOf(m)
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return configError("Register: model %d (%T) is not a pointer to a struct such as (*User)(nil)", i, m)
		}
		table := db.Table(t)
		if _, done := registered.Load(table); done {
			continue
		}
		for _, f := range table.Fields {
			prepareField(d, f)
		}
		registered.Store(table, true)
	}
	return nil
}

func prepareField(d idfield.Dialect, f *schema.Field) {
	it, shape, ok := idfield.Field(f.StructField.Type)
	if !ok {
		return
	}
	if _, tagged := f.Tag.Option("type"); !tagged {
		if t := idfield.SQLType(d, it.Options); t != "" {
			f.CreateTableSQLType = t
		}
	}
	if shape == idfield.Plain {
		plainAccess(it, f)
	}
	if f.NullZero && shape == idfield.Plain && f.Scan != nil {
		scan := f.Scan
		f.Scan = func(dest reflect.Value, src any) error {
			if src == nil {
				dest.SetZero()
				return nil
			}
			return scan(dest, src)
		}
	}
}

// plainAccess gives an ID field of shape Plain a zero check and, for an
// integer DB format, an appender that read the stored value in place. bun's
// own go through interfaces (IsZero, and Value for the SQL text), boxing
// the ID each time: two allocations per row of an insert. The text is the
// same: what Value returns, formatted as bun formats an int64; everything
// else (the zero ID, an unsigned value above 2^63-1, other formats, a
// misconfigured type) goes to bun's appender.
func plainAccess(it *idfield.Type, f *schema.Field) {
	f.IsZero = func(v reflect.Value) bool { return idfield.Uint64(v) == 0 }
	if it.Options.Check() != nil || f.Append == nil {
		return
	}
	switch it.Options.DBFormat {
	case 0, once.Signed, once.Unsigned:
	default:
		return
	}
	orig := f.Append
	f.Append = func(gen schema.QueryGen, b []byte, v reflect.Value) []byte {
		if u := idfield.Uint64(v); u != 0 && u <= math.MaxInt64 {
			return strconv.AppendInt(b, int64(u), 10)
		}
		return orig(gen, b, v)
	}
}

// BeforeAppendModel is what a model's bun.BeforeAppendModelHook calls,
// with the hook's receiver as model:
//
//	func (u *User) BeforeAppendModel(ctx context.Context, q bun.Query) error {
//		return oncebun.BeforeAppendModel(ctx, q, u)
//	}
//
// Before an insert it fills the IDs of the rows (for a bulk insert bun
// calls the hook once per element; the first call fills the whole slice,
// so a failure leaves none set), and before an insert or an update it
// refuses a row that would write the zero ID (an error matching
// once.ErrInvalid that names the model and field). An insert refuses a
// row holding an ID set before it in a field it fills ([ErrPresetID])
// unless ctx comes from [WithPresetIDs] or the field is tagged
// `once:"preset"`. An upsert (On(...), Ignore()) is set up so that each
// struct ends up holding the key of the row it was written to (see the
// package documentation).
func BeforeAppendModel(ctx context.Context, q bun.Query, model any) error {
	switch q := q.(type) {
	case *bun.InsertQuery:
		if q == nil || q.DB() == nil {
			return configError("BeforeAppendModel: query is nil")
		}
		return beforeWrite(ctx, q, q.DB(), q.GetModel(), model, true)
	case *bun.UpdateQuery:
		if q == nil || q.DB() == nil {
			return configError("BeforeAppendModel: query is nil")
		}
		return beforeWrite(ctx, q, q.DB(), q.GetModel(), model, false)
	}
	return nil
}

// beforeWrite does BeforeAppendModel's work for an insert or update q
// under ctx on db whose model is m, called with model.
func beforeWrite(ctx context.Context, q bun.Query, db *bun.DB, m bun.Model, model any, insert bool) error {
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return configError("BeforeAppendModel: model %T is not a non-nil pointer to a struct", model)
	}
	elems, first := rowsOf(m, v)
	if !first {
		return nil // the call for the first element did the work
	}
	t := v.Elem().Type()
	fs, err := fieldsOf(db, t) // every row is a t
	if err != nil {
		return err
	}
	p := partsOf(q)
	if !p.ok {
		return configError("%s: cannot read the parts of bun's %T (the adapter supports bun v1.3)", t.Name(), q)
	}
	table := db.Table(t)
	if !insert {
		return checkWrite(table, elems, p, false)
	}
	var filled []bool // for an upsert: which keys this insert generates
	if p.upsert() {
		filled = make([]bool, len(elems))
		if len(table.PKs) == 1 {
			for i, e := range elems {
				filled[i] = table.PKs[0].HasZeroValue(e)
			}
		}
	}
	var undo idfield.Undo
	if needsFill(elems[0], fs) {
		undo = make(idfield.Undo, 0, len(elems)*len(fs))
	}
	presets := idfield.Context(ctx)
	for _, e := range elems {
		if err := fillFields(e, fs, &presets, &undo); err != nil {
			undo.Run()
			return err
		}
	}
	err = checkWrite(table, elems, p, true)
	if err == nil && p.upsert() {
		iq := q.(*bun.InsertQuery)
		err = prepareUpsert(iq, table, elems, filled, undo, p)
	}
	if err != nil {
		undo.Run()
	}
	return err
}

// rowsOf returns the structs a query with model m writes, in statement
// order, and whether v (the receiver of a model hook) is the first of
// them; for a model that is not a slice, v alone. bun calls the hook once
// per element: for every call but the first it returns at once, without
// walking the slice.
func rowsOf(m bun.Model, v reflect.Value) ([]reflect.Value, bool) {
	if m != nil {
		if w := reflect.ValueOf(m.Value()); w.Kind() == reflect.Pointer && !w.IsNil() && w.Elem().Kind() == reflect.Slice {
			w = w.Elem()
			if w.Type().Elem().Kind() == reflect.Struct && w.Len() > 0 && w.Pointer() != v.Pointer() {
				return nil, false // a []T whose first row, at the array's start, is not v
			}
			first := -1
			for i := range w.Len() {
				if _, ok := rowAt(w, i); ok {
					first = i
					break
				}
			}
			if first >= 0 {
				if e, _ := rowAt(w, first); e.Addr().Pointer() != v.Pointer() {
					return nil, false
				}
				elems := make([]reflect.Value, 0, w.Len()-first)
				for i := first; i < w.Len(); i++ {
					if e, ok := rowAt(w, i); ok {
						elems = append(elems, e)
					}
				}
				return elems, true
			}
		}
	}
	return []reflect.Value{v.Elem()}, true
}

// rowAt returns element i of slice w as an addressable struct, and whether
// it is one (nil pointers are skipped).
func rowAt(w reflect.Value, i int) (reflect.Value, bool) {
	e := w.Index(i)
	if e.Kind() == reflect.Pointer {
		if e.IsNil() {
			return reflect.Value{}, false
		}
		e = e.Elem()
	}
	return e, e.Kind() == reflect.Struct && e.CanAddr()
}

// Fill fills zero IDs in model: a pointer to a struct, or to a slice of
// structs or of pointers to structs. db supplies bun's table metadata
// (which fields are primary keys). A field holding an ID set before
// ([ErrPresetID]) is refused as an insert refuses it, unless ctx comes
// from [WithPresetIDs] or the field is tagged `once:"preset"`. On error
// nothing is left filled.
func Fill(ctx context.Context, db bun.IDB, model any) error {
	if db == nil || reflect.ValueOf(db).IsZero() {
		return configError("Fill: db is nil")
	}
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return configError("Fill: model %T is not a non-nil pointer", model)
	}
	presets := idfield.Context(ctx)
	return fill(db.NewSelect().DB(), v.Elem(), &presets)
}

// autoField is one field to fill.
type autoField struct {
	field *schema.Field
	id    *idfield.Type
	shape idfield.Shape
	keep  bool // tagged once:"preset": a preset ID is kept
}

// fieldsOf returns the fields of struct type t to fill (cached by bun's
// table, which db keeps for the life of the process). A table with ID
// fields that Register has not prepared is an error: bun would declare and
// bind those fields as JSON.
func fieldsOf(db *bun.DB, t reflect.Type) ([]autoField, error) {
	table := db.Table(t)
	if v, ok := tableFields.Load(table); ok {
		return v.([]autoField), nil
	}
	var fs []autoField
	soleKey := len(table.PKs) == 1
	for _, f := range table.Fields {
		if _, _, isID := idfield.Field(f.StructField.Type); isID {
			if _, ok := registered.Load(table); !ok {
				return nil, configError("%s has ID fields but is not registered: call oncebun.Register(db, (*%s)(nil)) at start-up",
					t.Name(), t.Name())
			}
		}
		it, shape, ok := idfield.AutoFill(f.StructField, f.IsPK && soleKey)
		if !ok {
			continue
		}
		fs = append(fs, autoField{field: f, id: it, shape: shape, keep: idfield.KeepsPreset(f.StructField)})
	}
	v, _ := tableFields.LoadOrStore(table, fs)
	return v.([]autoField), nil
}

// needsFill reports whether struct value v has an ID field to fill.
func needsFill(v reflect.Value, fs []autoField) bool {
	for _, f := range fs {
		fv := f.field.Value(v)
		switch f.shape {
		case idfield.Plain:
			if fv.IsZero() {
				return true
			}
		case idfield.Pointer:
			if fv.IsNil() || fv.Elem().IsZero() {
				return true
			}
		case idfield.Null:
			if !fv.Field(1).Bool() {
				return true
			}
		}
	}
	return false
}

// fill fills a struct or a slice of structs / pointers to structs; on
// error it leaves nothing filled.
func fill(db *bun.DB, v reflect.Value, presets *idfield.Presets) error {
	var undo idfield.Undo
	var err error
	switch v.Kind() {
	case reflect.Struct:
		err = fillStruct(db, v, presets, &undo)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len() && err == nil; i++ {
			e := v.Index(i)
			if e.Kind() == reflect.Pointer {
				if e.IsNil() {
					continue
				}
				e = e.Elem()
			}
			if e.Kind() == reflect.Struct {
				err = fillStruct(db, e, presets, &undo)
			}
		}
	default:
		err = configError("cannot fill a %s; want a struct or a slice of structs", v.Type())
	}
	if err != nil {
		undo.Run()
	}
	return err
}

func fillStruct(db *bun.DB, v reflect.Value, presets *idfield.Presets, undo *idfield.Undo) error {
	fs, err := fieldsOf(db, v.Type())
	if err != nil {
		return err
	}
	return fillFields(v, fs, presets, undo)
}

// fillFields fills the fields fs of struct value v, recording in undo; a
// preset ID is refused unless the field or presets keeps it.
func fillFields(v reflect.Value, fs []autoField, presets *idfield.Presets, undo *idfield.Undo) error {
	for _, f := range fs {
		fv := f.field.Value(v)
		if !f.keep && idfield.Preset(fv, f.shape) && !presets.Keep() {
			return idfield.PresetError(ErrPresetID, "oncebun", v.Type().Name(), f.field.GoName,
				"oncebun.WithPresetIDs(ctx)", `the tag once:"preset"`)
		}
		u, err := f.id.Fill(fv, f.shape)
		if err != nil {
			return fmt.Errorf("oncebun: new ID for %s.%s: %w", v.Type().Name(), f.field.GoName, err)
		}
		undo.Add(u)
	}
	return nil
}
