// Package adaptertest holds what the adapter tests share: the databases to
// run against, ID types, a generator the tests control, and catalog queries.
package adaptertest

import (
	"crypto/sha256"
	"database/sql"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// DB is one database under test.
type DB struct {
	Name    string // "postgres", "mariadb", "mysql", "sqlite"
	Dialect idfield.Dialect
	SQL     *sql.DB
	// Oracle is true on Oracle MySQL (as opposed to MariaDB): no
	// RETURNING, so upserts read their keys back otherwise.
	Oracle bool
}

// Each runs f as a subtest against PostgreSQL, MariaDB, Oracle MySQL and
// SQLite.
func Each(t *testing.T, f func(t *testing.T, db DB)) {
	t.Helper()
	dbs := []struct {
		name string
		d    idfield.Dialect
		open func(testing.TB) *sql.DB
	}{
		{"postgres", idfield.Postgres, isolatedPostgres},
		{"mariadb", idfield.MySQL, isolatedMySQL},
		{"mysql", idfield.MySQL, isolatedMySQL9},
		{"sqlite", idfield.SQLite, testenv.SQLite},
	}
	for _, d := range dbs {
		t.Run(d.name, func(t *testing.T) {
			db := DB{Name: d.name, Dialect: d.d, SQL: d.open(t)}
			if d.d == idfield.MySQL {
				db.Oracle = testenv.OracleMySQL(t, db.SQL)
			}
			f(t, db)
		})
	}
}

// isolatedPostgres returns a pool whose search_path is a fresh schema, so
// that tests can use fixed table names; the schema is dropped at the end.
func isolatedPostgres(t testing.TB) *sql.DB {
	db, _ := testenv.PostgresSchema(t, "s")
	return db
}

// isolatedMySQL returns a pool on a fresh database, dropped at the end.
func isolatedMySQL(t testing.TB) *sql.DB {
	db, _ := testenv.MySQLDatabase(t, "s")
	return db
}

// isolatedMySQL9 is isolatedMySQL on Oracle MySQL.
func isolatedMySQL9(t testing.TB) *sql.DB {
	db, _ := testenv.MySQL9Database(t, "s")
	return db
}

// Gen is the binding every test ID type draws from. Use [Leased] or
// [Unleased] to point it at a factory.
var Gen once.Binding

// key is a fixed test key for masking (never use a fixed key in production).
var key = sha256.Sum256([]byte("once adapter tests"))

// Leased binds Gen (and the process default) to a factory that behaves as
// one whose lease is held, for the duration of the test.
func Leased(t testing.TB) *nonce.Factory {
	t.Helper()
	f, err := nonce.New(nonce.Config{BaseKey: key[:]})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Activate(7, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	bind(t, f)
	return f
}

// Unleased binds Gen (and the process default) to a factory waiting for a
// lease that never comes (not Fixed, never activated).
func Unleased(t testing.TB) *nonce.Factory {
	t.Helper()
	f, err := nonce.New(nonce.Config{BaseKey: key[:]})
	if err != nil {
		t.Fatal(err)
	}
	bind(t, f)
	return f
}

func bind(t testing.TB, f *nonce.Factory) {
	prev, prevDefault := Gen.Factory(), once.DefaultBinding().Factory()
	Gen.Set(f)
	once.DefaultBinding().Set(f)
	t.Cleanup(func() {
		Gen.Set(prev)
		once.DefaultBinding().Set(prevDefault)
	})
}

// ID types of the tests: typed, masked and prefixed user and post IDs in the
// default signed DB format, and one type per other DB format.
type (
	userSpec     struct{}
	postSpec     struct{}
	unsignedSpec struct{}
	rawSpec      struct{}
	rawPfxSpec   struct{}
	url64Spec    struct{}
	hexPfxSpec   struct{}
	hex32Spec    struct{}
)

func (userSpec) Options() once.Options {
	return once.Options{Prefix: "usr_", Mask: true, Generator: &Gen}
}
func (postSpec) Options() once.Options {
	return once.Options{Prefix: "pst_", Mask: true, Generator: &Gen}
}
func (unsignedSpec) Options() once.Options {
	return once.Options{Format: once.Unsigned, DBFormat: once.Unsigned, Generator: &Gen}
}
func (rawSpec) Options() once.Options { return once.Options{DBFormat: once.Raw, Generator: &Gen} }
func (rawPfxSpec) Options() once.Options {
	return once.Options{Prefix: "r_", DBFormat: once.Raw, PersistPrefix: true, Generator: &Gen}
}
func (url64Spec) Options() once.Options {
	return once.Options{Prefix: "u_", DBFormat: once.URL64, Generator: &Gen}
}
func (hexPfxSpec) Options() once.Options {
	return once.Options{Prefix: "hx_", Format: once.Hex, DBFormat: once.Hex, PersistPrefix: true, Generator: &Gen}
}
func (hex32Spec) Options() once.Options {
	return once.Options{Format: once.Hex32, DBFormat: once.Hex32, Generator: &Gen}
}

// Test ID types.
type (
	UserID     = once.Typed[userSpec]
	PostID     = once.Typed[postSpec]
	UnsignedID = once.Typed[unsignedSpec]
	RawID      = once.Typed[rawSpec]
	RawPfxID   = once.Typed[rawPfxSpec]
	URL64ID    = once.Typed[url64Spec]
	HexPfxID   = once.Typed[hexPfxSpec]
	Hex32ID    = once.Typed[hex32Spec]
)

// Column is a column as the database catalog describes it.
type Column struct {
	Type      string // as the catalog spells it, lower case
	Collation string // "" when none
	Extra     string // default expression / auto_increment / identity
	PK        bool
}

// Columns reads the columns of table from the database catalog
// (pg_attribute, information_schema.columns, pragma_table_info).
func Columns(t testing.TB, db DB, table string) map[string]Column {
	t.Helper()
	var q string
	switch db.Dialect {
	case idfield.Postgres:
		q = `SELECT a.attname, format_type(a.atttypid, a.atttypmod), coalesce(co.collname, ''),
			coalesce(pg_get_expr(d.adbin, d.adrelid), '') || CASE WHEN a.attidentity <> '' THEN 'identity' ELSE '' END,
			EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY(i.indkey))
			FROM pg_attribute a
			LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 100
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`
	case idfield.MySQL:
		q = `SELECT column_name, column_type, coalesce(collation_name, ''), extra, column_key = 'PRI'
			FROM information_schema.columns WHERE table_schema = database() AND table_name = ?`
	case idfield.SQLite:
		q = `SELECT name, type, '', '', pk > 0 FROM pragma_table_info(?)`
	}
	rows, err := db.SQL.Query(q, table)
	if err != nil {
		t.Fatalf("catalog of %s: %v", table, err)
	}
	defer rows.Close()
	cols := map[string]Column{}
	for rows.Next() {
		var name string
		var c Column
		if err := rows.Scan(&name, &c.Type, &c.Collation, &c.Extra, &c.PK); err != nil {
			t.Fatal(err)
		}
		c.Type = strings.ToLower(c.Type)
		if db.Dialect == idfield.MySQL { // MariaDB shows a display width, MySQL 8 and later none
			c.Type = displayWidth.ReplaceAllString(c.Type, "$1")
		}
		cols[strings.ToLower(name)] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cols) == 0 {
		t.Fatalf("table %s not found in the catalog", table)
	}
	return cols
}

var displayWidth = regexp.MustCompile(`^((?:tiny|small|medium|big)?int)\(\d+\)`)

// Want is the catalog spelling of the column type for ID type T's options.
type Want struct {
	Type      string
	Collation string
}

// WantColumn is what Columns reports for a column created with
// idfield.SQLType for options o.
func WantColumn(d idfield.Dialect, o once.Options) Want {
	p := 0
	if o.PersistPrefix {
		p = len(o.Prefix)
	}
	n := func(k int) string { return strconv.Itoa(k + p) }
	switch d {
	case idfield.Postgres:
		switch o.DBFormat {
		case 0, once.Signed:
			return Want{Type: "bigint"}
		case once.Unsigned:
			return Want{Type: "numeric(20,0)"}
		case once.Raw:
			return Want{Type: "bytea"}
		default:
			return Want{Type: "character varying(" + n(idfield.TextLen(o.DBFormat)) + ")", Collation: "C"}
		}
	case idfield.MySQL:
		switch o.DBFormat {
		case 0, once.Signed:
			return Want{Type: "bigint"}
		case once.Unsigned:
			return Want{Type: "bigint unsigned"}
		case once.Raw:
			return Want{Type: "binary(" + n(8) + ")"}
		default:
			return Want{Type: "varchar(" + n(idfield.TextLen(o.DBFormat)) + ")", Collation: "ascii_bin"}
		}
	}
	return Want{Type: idfield.SQLType(d, o)}
}

// Count returns the number of rows of table.
func Count(t testing.TB, db DB, table string) int {
	t.Helper()
	var n int
	if err := db.SQL.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// NoPanic runs f and turns a panic into a test failure naming what; it
// returns f's error.
func NoPanic(t testing.TB, what string, f func() error) error {
	t.Helper()
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s panicked: %v", what, r)
			}
		}()
		err = f()
	}()
	return err
}
