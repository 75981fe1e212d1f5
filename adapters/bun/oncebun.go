package oncebun

import (
	"context"
	"fmt"
	"reflect"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/once-go/once/adapters/internal/idfield"
)

// Register prepares the tables of models (pointers to structs, e.g.
// (*User)(nil)) on db: column types for ID fields, and NULL as the zero ID
// for `nullzero` ID fields. Many-to-many join models are registered with
// db.RegisterModel as usual; pass them here too. Call it at start-up,
// before the models are used.
func Register(db *bun.DB, models ...any) error {
	d := idfield.DialectOf(db.Dialect().Name().String())
	if d == 0 {
		return fmt.Errorf("oncebun: unsupported dialect %s", db.Dialect().Name())
	}
	for _, m := range models {
		t := reflect.TypeOf(m)
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return fmt.Errorf("oncebun: model %T is not a struct or pointer to one", m)
		}
		table := db.Table(t)
		for _, f := range table.Fields {
			prepareField(d, f)
		}
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

// BeforeAppendModel fills the IDs of model, the receiver of a model's
// bun.BeforeAppendModelHook, when q is an insert:
//
//	func (u *User) BeforeAppendModel(ctx context.Context, q bun.Query) error {
//		return oncebun.BeforeAppendModel(ctx, q, u)
//	}
//
// For a bulk insert bun calls the hook once per element; the first element
// that needs IDs fills the whole slice, so a failure leaves none set.
func BeforeAppendModel(_ context.Context, q bun.Query, model any) error {
	iq, ok := q.(*bun.InsertQuery)
	if !ok {
		return nil
	}
	db := iq.DB()
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("oncebun: BeforeAppendModel: model %T is not a pointer to a struct", model)
	}
	fs := fieldsOf(db, v.Elem().Type())
	if !needsFill(v.Elem(), fs) {
		return nil
	}
	if m := q.GetModel(); m != nil {
		if whole := reflect.ValueOf(m.Value()); whole.Kind() == reflect.Pointer && !whole.IsNil() &&
			whole.Elem().Kind() == reflect.Slice {
			return fill(db, whole.Elem())
		}
	}
	return fill(db, v.Elem())
}

// Fill fills zero IDs in model: a pointer to a struct, or to a slice of
// structs or of pointers to structs. db supplies bun's table metadata
// (which fields are primary keys). On error nothing is left filled.
func Fill(db bun.IDB, model any) error {
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("oncebun: Fill: want a non-nil pointer, got %T", model)
	}
	return fill(db.NewSelect().DB(), v.Elem())
}

// autoField is one field to fill.
type autoField struct {
	field *schema.Field
	id    *idfield.Type
	shape idfield.Shape
}

// fieldsOf returns the fields of struct type t to fill (cached by bun's
// table, which db keeps for the life of the process).
func fieldsOf(db *bun.DB, t reflect.Type) []autoField {
	table := db.Table(t)
	if v, ok := tableFields.Load(table); ok {
		return v.([]autoField)
	}
	var fs []autoField
	soleKey := len(table.PKs) == 1
	for _, f := range table.Fields {
		it, shape, ok := idfield.AutoFill(f.StructField, f.IsPK && soleKey)
		if !ok {
			continue
		}
		fs = append(fs, autoField{field: f, id: it, shape: shape})
	}
	v, _ := tableFields.LoadOrStore(table, fs)
	return v.([]autoField)
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

// fill fills a struct or a slice of structs / pointers to structs.
func fill(db *bun.DB, v reflect.Value) error {
	var undo idfield.Undo
	var err error
	switch v.Kind() {
	case reflect.Struct:
		err = fillStruct(db, v, &undo)
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
				err = fillStruct(db, e, &undo)
			}
		}
	default:
		err = fmt.Errorf("oncebun: cannot fill %s", v.Type())
	}
	if err != nil {
		undo.Run()
	}
	return err
}

func fillStruct(db *bun.DB, v reflect.Value, undo *idfield.Undo) error {
	for _, f := range fieldsOf(db, v.Type()) {
		u, err := f.id.Fill(f.field.Value(v), f.shape)
		if err != nil {
			return fmt.Errorf("oncebun: new ID for %s.%s: %w", v.Type().Name(), f.field.GoName, err)
		}
		undo.Add(u)
	}
	return nil
}
