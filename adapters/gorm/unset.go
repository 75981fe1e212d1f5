package oncegorm

import (
	"reflect"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/once-go/once/adapters/internal/idfield"
)

// idColumn is a field of a model that holds an ID (T, *T, sql.Null[T]).
type idColumn struct {
	field *schema.Field
	shape idfield.Shape
}

var idColumns sync.Map // *schema.Schema -> []idColumn

// idColumnsOf returns (and caches) the ID fields of s.
func idColumnsOf(s *schema.Schema) []idColumn {
	if v, ok := idColumns.Load(s); ok {
		return v.([]idColumn)
	}
	var cs []idColumn
	for _, f := range s.Fields {
		if f.StructField.Type == nil || f.DBName == "" {
			continue
		}
		if _, shape, ok := idfield.Field(f.StructField.Type); ok {
			cs = append(cs, idColumn{field: f, shape: shape})
		}
	}
	v, _ := idColumns.LoadOrStore(s, cs)
	return v.([]idColumn)
}

// checkCreate fails a create that would write the zero ID into a column
// (see [idfield.Unset]): the INSERT would fail on the ID's Value, after
// GORM has begun its transaction, with a message naming no field. It runs
// after the associations GORM creates first have given the foreign keys
// their values.
func checkCreate(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil {
		return
	}
	if checkMaps(db) {
		return
	}
	cs := idColumnsOf(stmt.Schema)
	if len(cs) == 0 {
		return
	}
	selected, restricted := stmt.SelectAndOmitColumns(true, false)
	check := func(e reflect.Value) bool {
		for _, c := range cs {
			f := c.field
			if sel, ok := selected[f.DBName]; ok && !sel || !ok && restricted || !f.Creatable {
				continue
			}
			v := f.ReflectValueOf(stmt.Context, e)
			if !idfield.Unset(v, c.shape) {
				continue
			}
			if c.shape == idfield.Plain && f.HasDefaultValue && f.DefaultValueInterface == nil {
				continue // GORM leaves the column to its default
			}
			db.AddError(idfield.UnsetError("oncegorm", stmt.Schema.Name, f.Name, c.shape))
			return false
		}
		return true
	}
	rv := reflect.Indirect(stmt.ReflectValue)
	switch rv.Kind() {
	case reflect.Struct:
		check(rv)
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			if e := reflect.Indirect(rv.Index(i)); e.Kind() == reflect.Struct && !check(e) {
				return
			}
		}
	}
}

// checkUpdate is the update callback that fails an update that would
// write the zero ID into a column: a field GORM writes (selected, or not
// zero: a *T pointing to the zero ID is not nil) or a map value.
func checkUpdate(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil || checkMaps(db) {
		return
	}
	rv := reflect.Indirect(reflect.ValueOf(stmt.Dest))
	if rv.Kind() != reflect.Struct || rv.Type() != stmt.Schema.ModelType {
		return
	}
	selected, restricted := stmt.SelectAndOmitColumns(false, true)
	for _, c := range idColumnsOf(stmt.Schema) {
		f := c.field
		if f.PrimaryKey || !f.Updatable {
			continue
		}
		sel, ok := selected[f.DBName]
		if ok && !sel || !ok && restricted {
			continue
		}
		if !idfield.Unset(f.ReflectValueOf(stmt.Context, rv), c.shape) {
			continue
		}
		if !ok && c.shape == idfield.Plain {
			continue // GORM skips zero fields it was not asked to write
		}
		db.AddError(idfield.UnsetError("oncegorm", stmt.Schema.Name, f.Name, c.shape))
		return
	}
}

// checkMaps checks the values of a map Dest (Create(map...), Updates(map),
// Update(column, value)); it reports whether Dest was a map.
func checkMaps(db *gorm.DB) bool {
	stmt := db.Statement
	var ms []map[string]any
	switch d := stmt.Dest.(type) {
	case map[string]any:
		ms = []map[string]any{d}
	case *map[string]any:
		ms = []map[string]any{*d}
	case []map[string]any:
		ms = d
	case *[]map[string]any:
		ms = *d
	default:
		return false
	}
	for _, m := range ms {
		for k, v := range m {
			if v == nil {
				continue
			}
			rv := reflect.ValueOf(v)
			_, shape, ok := idfield.Field(rv.Type())
			if !ok || !idfield.Unset(rv, shape) {
				continue
			}
			name := k
			if f := stmt.Schema.LookUpField(k); f != nil {
				name = f.Name
			}
			db.AddError(idfield.UnsetError("oncegorm", stmt.Schema.Name, name, shape))
			return true
		}
	}
	return true
}
