package idfield

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/once-go/once/once"
)

type spec struct{}

func (spec) Options() once.Options {
	return once.Options{Prefix: "k_", DBFormat: once.Hex, PersistPrefix: true}
}

type typed = once.Typed[spec]

func TestField(t *testing.T) {
	for _, c := range []struct {
		t     reflect.Type
		shape Shape
	}{
		{reflect.TypeFor[once.ID](), Plain},
		{reflect.TypeFor[typed](), Plain},
		{reflect.TypeFor[*typed](), Pointer},
		{reflect.TypeFor[sql.Null[typed]](), Null},
		{reflect.TypeFor[sql.Null[once.ID]](), Null},
		{reflect.TypeFor[int64](), 0},
		{reflect.TypeFor[spec](), 0},
		{reflect.TypeFor[sql.NullInt64](), 0},
		{reflect.TypeFor[sql.Null[int64]](), 0},
		{reflect.TypeFor[**typed](), 0},
	} {
		_, shape, ok := Field(c.t)
		assert.Equal(t, c.shape, shape, "%s: shape", c.t)
		assert.Equal(t, c.shape != 0, ok, "%s: ok", c.t)
	}
	it, _, _ := Field(reflect.TypeFor[typed]())
	assert.Equal(t, "k_", it.Options.Prefix, "options %+v", it.Options)
}

func TestSQLType(t *testing.T) {
	o := func(db once.Format, persist bool) once.Options {
		return once.Options{Prefix: "abc_", DBFormat: db, PersistPrefix: persist}
	}
	for _, c := range []struct {
		o              once.Options
		pg, my, lite   string
		pgSize, mySize int
	}{
		{once.Options{}, "bigint", "bigint", "integer", 0, 0},
		{o(once.Signed, false), "bigint", "bigint", "integer", 0, 0},
		{o(once.Unsigned, false), "numeric(20)", "bigint unsigned", "text", 0, 0},
		{o(once.Raw, false), "bytea", "binary(8)", "blob", 0, 8},
		{o(once.Raw, true), "bytea", "binary(12)", "blob", 0, 12},
		{o(once.URL64, false), `varchar(11) collate "C"`, "varchar(11) character set ascii collate ascii_bin", "text", 11, 11},
		{o(once.Hex, true), `varchar(20) collate "C"`, "varchar(20) character set ascii collate ascii_bin", "text", 20, 20},
		{o(once.Hex32, false), `varchar(13) collate "C"`, "varchar(13) character set ascii collate ascii_bin", "text", 13, 13},
		{o(once.Signed, true), "", "", "", 0, 0}, // invalid: PersistPrefix with an integer format
	} {
		assert.Equal(t, [3]string{c.pg, c.my, c.lite}, [3]string{SQLType(Postgres, c.o), SQLType(MySQL, c.o), SQLType(SQLite, c.o)}, "%+v: SQL types (Postgres, MySQL, SQLite)", c.o)
		if c.pg != "" {
			assert.Equal(t, [3]int{c.pgSize, c.mySize, 0}, [3]int{Size(Postgres, c.o), Size(MySQL, c.o), Size(SQLite, c.o)}, "%+v: sizes (Postgres, MySQL, SQLite)", c.o)
		}
	}
	assert.Empty(t, SQLType(0, once.Options{}), "SQL type of an unknown dialect")
	assert.Zero(t, DialectOf("oracle"), "DialectOf(oracle)")
	assert.Equal(t, Postgres, DialectOf("pg"), "DialectOf(pg)")
}

func TestAutoFill(t *testing.T) {
	type row struct {
		ID     typed
		Manual typed  `once:"manual"`
		Auto   *typed `once:"auto"`
		Ptr    *typed
		Other  int64 `once:"auto"`
	}
	rt := reflect.TypeFor[row]()
	for _, c := range []struct {
		field   string
		soleKey bool
		want    bool
	}{
		{"ID", true, true},
		{"ID", false, false},
		{"Manual", true, false},
		{"Auto", false, true},
		{"Ptr", true, false}, // a nullable key is not filled unless tagged auto
		{"Other", true, false},
	} {
		sf, _ := rt.FieldByName(c.field)
		_, _, ok := AutoFill(sf, c.soleKey)
		assert.Equal(t, c.want, ok, "%s (sole key %v)", c.field, c.soleKey)
	}
}
