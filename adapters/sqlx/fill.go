package oncesqlx

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// Fill fills zero IDs in v: a pointer to a struct, or a slice, array or
// pointer to a slice of structs or pointers to structs (nil elements are
// skipped). On error nothing is left filled.
func Fill(v any) error {
	rv, err := target("Fill", "v", v)
	if err != nil {
		return err
	}
	var undo idfield.Undo
	if err := fillValue(rv, &undo); err != nil {
		undo.Run()
		return err
	}
	return nil
}

// target returns the value v points to (or v itself for a slice or array),
// or an error naming fn's argument arg when v is nil.
func target(fn, arg string, v any) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Invalid:
		return rv, configError("%s: %s is nil", fn, arg)
	case reflect.Pointer:
		if rv.IsNil() {
			return rv, configError("%s: %s is a nil %T", fn, arg, v)
		}
		return rv.Elem(), nil
	}
	return rv, nil
}

// NamedExec fills the IDs of arg (see [Fill]) and runs the named statement
// with it, as sqlx.NamedExecContext does (a slice arg makes a bulk insert).
// A statement that would write the zero ID (a zero T, a *T pointing to the
// zero ID, as encoding/json makes of "", a valid sql.Null of it) fails
// before it runs with an error matching once.ErrInvalid that names the
// field. If the statement fails, the IDs it filled are reset.
func NamedExec(ctx context.Context, db sqlx.ExtContext, query string, arg any) (sql.Result, error) {
	if ctx == nil {
		return nil, configError("NamedExec: ctx is nil")
	}
	if db == nil || reflect.ValueOf(db).IsZero() {
		return nil, configError("NamedExec: db is nil")
	}
	rv, err := target("NamedExec", "arg", arg)
	if err != nil {
		return nil, err
	}
	var undo idfield.Undo
	if err := fillValue(rv, &undo); err != nil {
		undo.Run()
		return nil, err
	}
	bound, args, err := db.BindNamed(query, arg)
	if err == nil {
		err = checkArgs(rv, query, args)
	}
	if err != nil {
		undo.Run()
		return nil, err
	}
	res, err := db.ExecContext(ctx, bound, args...)
	if err != nil {
		undo.Run()
	}
	return res, err
}

// checkArgs fails when an argument bound from rv (a struct or a slice of
// them) for the named query would write the zero ID, naming the field.
func checkArgs(rv reflect.Value, query string, args []any) error {
	for _, a := range args {
		if a == nil {
			continue
		}
		v := reflect.ValueOf(a)
		if _, shape, ok := idfield.Field(v.Type()); ok && idfield.Unset(v, shape) {
			return unsetField(rv, query)
		}
	}
	return nil
}

// unsetField returns the error for the first ID field of rv (a struct or a
// slice of them) that the named query binds and that holds the zero ID.
func unsetField(rv reflect.Value, query string) error {
	elems := []reflect.Value{rv}
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		elems = elems[:0]
		for i := range rv.Len() {
			if e := reflect.Indirect(rv.Index(i)); e.Kind() == reflect.Struct {
				elems = append(elems, e)
			}
		}
	}
	for _, e := range elems {
		for _, c := range columnsOf(e.Type()) {
			v, ok := fieldByIndex(e, c.index)
			if ok && idfield.Unset(v, c.shape) && binds(query, c.column) {
				return idfield.UnsetError("oncesqlx", e.Type().Name(), c.name, c.shape)
			}
		}
	}
	typ := rv.Type()
	if len(elems) > 0 {
		typ = elems[0].Type()
	}
	return idfield.UnsetError("oncesqlx", typ.Name(), "(a bound field)", idfield.Plain)
}

// binds reports whether the named query has the parameter :name.
func binds(query, name string) bool {
	for i := 0; ; {
		j := strings.Index(query[i:], ":"+name)
		if j < 0 {
			return false
		}
		end := i + j + 1 + len(name)
		if (i+j == 0 || query[i+j-1] != ':') && (end == len(query) || !isNameByte(query[end])) {
			return true
		}
		i = end
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// idColumn is an ID field of a struct and the column sqlx maps it to.
type idColumn struct {
	name, column string
	field        reflect.StructField
	index        []int
	shape        idfield.Shape
}

var idColumnsCache sync.Map // reflect.Type -> []idColumn

// columnsOf returns (and caches) the ID fields of struct type t, with the
// names sqlx's default mapper gives them (the db tag, else the lower-cased
// field name), through embedded structs.
func columnsOf(t reflect.Type) []idColumn {
	if v, ok := idColumnsCache.Load(t); ok {
		return v.([]idColumn)
	}
	var cs []idColumn
	var walk func(t reflect.Type, index []int, depth int)
	walk = func(t reflect.Type, index []int, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag, _, _ := strings.Cut(sf.Tag.Get("db"), ",")
			if tag == "-" {
				continue
			}
			idx := append(index[:len(index):len(index)], i)
			if _, shape, ok := idfield.Field(sf.Type); ok && sf.IsExported() {
				if tag == "" {
					tag = strings.ToLower(sf.Name)
				}
				cs = append(cs, idColumn{name: sf.Name, column: tag, field: sf, index: idx, shape: shape})
				continue
			}
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if sf.Anonymous && ft.Kind() == reflect.Struct && depth < 8 {
				walk(ft, idx, depth+1)
			}
		}
	}
	walk(t, nil, 0)
	v, _ := idColumnsCache.LoadOrStore(t, cs)
	return v.([]idColumn)
}

func fillValue(rv reflect.Value, undo *idfield.Undo) error {
	switch rv.Kind() {
	case reflect.Struct:
		if !rv.CanAddr() {
			return configError("cannot fill a %s passed by value; pass a pointer", rv.Type())
		}
		return fillStruct(rv, undo)
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len(); i++ {
			e := rv.Index(i)
			if e.Kind() == reflect.Pointer {
				if e.IsNil() {
					continue
				}
				e = e.Elem()
			}
			if e.Kind() != reflect.Struct {
				return configError("cannot fill elements of type %s", rv.Type().Elem())
			}
			if !e.CanAddr() {
				return configError("cannot fill an array passed by value; pass a pointer")
			}
			if err := fillStruct(e, undo); err != nil {
				return err
			}
		}
		return nil
	}
	return configError("cannot fill a %s; want a pointer to a struct or a slice of structs", rv.Type())
}

func fillStruct(rv reflect.Value, undo *idfield.Undo) error {
	for _, f := range fieldsOf(rv.Type()) {
		v, ok := fieldByIndex(rv, f.index)
		if !ok {
			continue
		}
		u, err := f.id.Fill(v, f.shape)
		if err != nil {
			return fmt.Errorf("oncesqlx: new ID for %s.%s: %w", rv.Type().Name(), f.name, err)
		}
		undo.Add(u)
	}
	return nil
}

// fieldByIndex follows index through embedded structs; a nil embedded
// pointer has nothing to fill.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// autoField is one field to fill.
type autoField struct {
	name  string
	index []int
	id    *idfield.Type
	shape idfield.Shape
}

var structs sync.Map // reflect.Type -> []autoField

// fieldsOf returns (and caches) the fields of struct type t to fill: of
// its ID fields (see [columnsOf]), the one whose column is "id", taken as
// the sole primary key, and those tagged once:"auto".
func fieldsOf(t reflect.Type) []autoField {
	if v, ok := structs.Load(t); ok {
		return v.([]autoField)
	}
	var fs []autoField
	for _, c := range columnsOf(t) {
		if it, shape, ok := idfield.AutoFill(c.field, c.column == "id"); ok {
			fs = append(fs, autoField{name: c.name, index: c.index, id: it, shape: shape})
		}
	}
	v, _ := structs.LoadOrStore(t, fs)
	return v.([]autoField)
}

// ColumnType returns the column type to declare for IDs of id's type (a
// zero ID value such as UserID{}) in db's database, for migrations:
// "bigint" for the default signed DB format on PostgreSQL and MySQL,
// "integer" on SQLite, "bigint unsigned", "bytea", "binary(8)",
// "varchar(11) character set ascii collate ascii_bin", ... per DB format.
// A nil db or id, a driver name it does not know (pgx, postgres, mysql,
// sqlite, sqlite3 are known) and invalid options are [ErrConfig].
func ColumnType(db *sqlx.DB, id once.Spec) (string, error) {
	if db == nil {
		return "", configError("ColumnType: db is nil")
	}
	if id == nil {
		return "", configError("ColumnType: id is nil; pass a zero ID value such as UserID{}")
	}
	d := idfield.DialectOf(db.DriverName())
	if d == 0 {
		return "", configError("ColumnType: unknown driver %q (want pgx, postgres, mysql or sqlite)", printable(db.DriverName()))
	}
	o := id.Options()
	if err := o.Check(); err != nil {
		return "", configError("ColumnType: %T: %w", id, err)
	}
	return idfield.SQLType(d, o), nil
}

// printable cuts s to 32 bytes for an error message.
func printable(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}
