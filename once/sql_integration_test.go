package once_test

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// Kinds for every DB format, with and without a persisted prefix.
type (
	dbSigned   struct{}
	dbUnsigned struct{}
	dbRaw      struct{}
	dbURL64    struct{}
	dbHex      struct{}
	dbHex32    struct{}
	dbRawP     struct{}
	dbURL64P   struct{}
	dbHexP     struct{}
	dbHex32P   struct{}
)

func (dbSigned) Options() once.Options   { return once.Options{Prefix: "s_"} }
func (dbUnsigned) Options() once.Options { return once.Options{Prefix: "u_", DBFormat: once.Unsigned} }
func (dbRaw) Options() once.Options      { return once.Options{Prefix: "r_", DBFormat: once.Raw} }
func (dbURL64) Options() once.Options    { return once.Options{Prefix: "t_", DBFormat: once.URL64} }
func (dbHex) Options() once.Options      { return once.Options{Prefix: "h_", DBFormat: once.Hex} }
func (dbHex32) Options() once.Options    { return once.Options{Prefix: "v_", DBFormat: once.Hex32} }
func (dbRawP) Options() once.Options {
	return once.Options{Prefix: "r_", DBFormat: once.Raw, PersistPrefix: true}
}
func (dbURL64P) Options() once.Options {
	return once.Options{Prefix: "t_", DBFormat: once.URL64, PersistPrefix: true}
}
func (dbHexP) Options() once.Options {
	return once.Options{Prefix: "h_", DBFormat: once.Hex, PersistPrefix: true}
}
func (dbHex32P) Options() once.Options {
	return once.Options{Prefix: "v_", DBFormat: once.Hex32, PersistPrefix: true}
}

// dialect is what differs between the databases.
type dialect struct {
	name string
	db   *sql.DB
	// column types per DB format; "" skips the format on this database.
	signed, unsigned, raw, rawP, text string
	ph                                func(n int) string // placeholder
	textProtocol                      bool               // also query without args (MySQL text protocol)
}

func postgres(t *testing.T) dialect {
	return dialect{name: "postgres", db: testenv.Postgres(t), signed: "bigint", unsigned: "numeric(20,0)",
		raw: "bytea", rawP: "bytea", text: "text", ph: func(n int) string { return "$" + strconv.Itoa(n) }}
}

func mysql(t *testing.T) dialect {
	return dialect{name: "mysql", db: testenv.MySQL(t), signed: "BIGINT", unsigned: "BIGINT UNSIGNED",
		raw: "BINARY(8)", rawP: "VARBINARY(32)", text: "VARCHAR(40)", ph: func(int) string { return "?" }, textProtocol: true}
}

func sqlite(t *testing.T) dialect {
	// SQLite integers are signed 64-bit: unsigned IDs from 2^63 up arrive
	// as decimal text and need a TEXT column (an INTEGER one would turn
	// them into REAL).
	return dialect{name: "sqlite", db: testenv.SQLite(t), signed: "INTEGER", unsigned: "TEXT",
		raw: "BLOB", rawP: "BLOB", text: "TEXT", ph: func(int) string { return "?" }}
}

func TestSQLPostgres(t *testing.T) { runSQL(t, postgres(t)) }
func TestSQLMySQL(t *testing.T)    { runSQL(t, mysql(t)) }
func TestSQLSQLite(t *testing.T)   { runSQL(t, sqlite(t)) }

// TestSQLMySQLInterpolated sends arguments inlined in the query text
// (interpolateParams=true), where unsigned values from 2^63 go as quoted
// decimal text.
func TestSQLMySQLInterpolated(t *testing.T) {
	base := testenv.MySQL(t) // skips or fails when MariaDB is down
	_ = base
	dsn := testenv.MySQLDSN()
	if strings.Contains(dsn, "?") {
		dsn += "&interpolateParams=true"
	} else {
		dsn += "?interpolateParams=true"
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	d := mysql(t)
	d.name, d.db = "mysql-interpolated", db
	runSQL(t, d)
}

func runSQL(t *testing.T, d dialect) {
	t.Run("signed", func(t *testing.T) { sqlCase[dbSigned](t, d, d.signed) })
	t.Run("unsigned", func(t *testing.T) { sqlCase[dbUnsigned](t, d, d.unsigned) })
	t.Run("raw", func(t *testing.T) { sqlCase[dbRaw](t, d, d.raw) })
	t.Run("raw-prefix", func(t *testing.T) { sqlCase[dbRawP](t, d, d.rawP) })
	t.Run("url64", func(t *testing.T) { sqlCase[dbURL64](t, d, d.text) })
	t.Run("url64-prefix", func(t *testing.T) { sqlCase[dbURL64P](t, d, d.text) })
	t.Run("hex", func(t *testing.T) { sqlCase[dbHex](t, d, d.text) })
	t.Run("hex-prefix", func(t *testing.T) { sqlCase[dbHexP](t, d, d.text) })
	t.Run("hex32", func(t *testing.T) { sqlCase[dbHex32](t, d, d.text) })
	t.Run("hex32-prefix", func(t *testing.T) { sqlCase[dbHex32P](t, d, d.text) })
	t.Run("plain", func(t *testing.T) { sqlCasePlain(t, d) })
	t.Run("masked", func(t *testing.T) { sqlCaseMasked(t, d) })
	if d.name == "mysql" {
		t.Run("driver-forms", func(t *testing.T) { mysqlForms(t, d) })
	}
}

// mysqlForms pins what go-sql-driver/mysql hands to Scan for BIGINT
// UNSIGNED, so the tests above are known to cover each form: int64 below
// 2^63 and ASCII digits in []byte above it (binary protocol, query with
// args), uint64 (text protocol, query without args).
func mysqlForms(t *testing.T, d dialect) {
	table := createTable(t, d, d.unsigned)
	if _, err := d.db.Exec("INSERT INTO "+table+" (k, id) VALUES (?, ?), (?, ?)", 1, int64(5), 2, "18446744073709551615"); err != nil {
		t.Fatal(err)
	}
	forms := map[string]string{}
	for _, q := range []struct{ how, sql string }{
		{"binary small", "SELECT id FROM " + table + " WHERE k = ?"},
		{"text small", "SELECT id FROM " + table + " WHERE k = 1"},
		{"binary big", "SELECT id FROM " + table + " WHERE k = ?"},
		{"text big", "SELECT id FROM " + table + " WHERE k = 2"},
	} {
		var v any
		var err error
		switch {
		case strings.HasSuffix(q.how, "small") && strings.HasPrefix(q.how, "binary"):
			err = d.db.QueryRow(q.sql, 1).Scan(&v)
		case strings.HasPrefix(q.how, "binary"):
			err = d.db.QueryRow(q.sql, 2).Scan(&v)
		default:
			err = d.db.QueryRow(q.sql).Scan(&v)
		}
		if err != nil {
			t.Fatal(err)
		}
		forms[q.how] = fmt.Sprintf("%T", v)
	}
	want := map[string]string{"binary small": "int64", "text small": "uint64", "binary big": "[]uint8", "text big": "uint64"}
	for k, w := range want {
		if forms[k] != w {
			t.Errorf("%s: driver returned %s, want %s (forms %v)", k, forms[k], w, forms)
		}
	}
}

// testValues: edge values (incl. >= 2^63) and random ones.
func testValues() []uint64 {
	vs := append([]uint64{}, edgeValues[1:]...) // not 0: the zero ID has no database value
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		vs = append(vs, r.Uint64())
	}
	return vs
}

func createTable(t *testing.T, d dialect, col string) string {
	t.Helper()
	table := testenv.Unique(t, "once_id")
	q := fmt.Sprintf("CREATE TABLE %s (k INTEGER PRIMARY KEY, id %s NOT NULL, n %s NULL)", table, col, col)
	if _, err := d.db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	t.Cleanup(func() { d.db.Exec("DROP TABLE " + table) })
	return table
}

// sqlCase stores and loads IDs of spec S in a column of type col: NOT NULL
// into T, nullable through sql.Null[T] and *T, queried with arguments and
// (MySQL) without.
func sqlCase[S once.Spec](t *testing.T, d dialect, col string) {
	type T = once.Typed[S]
	opts := (*new(S)).Options()
	table := createTable(t, d, col)
	insert := fmt.Sprintf("INSERT INTO %s (k, id, n) VALUES (%s, %s, %s)", table, d.ph(1), d.ph(2), d.ph(3))
	values := testValues()
	for k, v := range values {
		id := T(once.FromUint64(v))
		var n any // NULL, sql.Null[T] or *T
		switch k % 3 {
		case 0:
			n = sql.Null[T]{}
		case 1:
			n = sql.Null[T]{V: id, Valid: true}
		case 2:
			if k%2 == 0 {
				n = (*T)(nil)
			} else {
				n = &id
			}
		}
		if _, err := d.db.Exec(insert, k, id, n); err != nil {
			t.Fatalf("insert %d (%v): %v", v, opts.DBFormat, err)
		}
	}
	// The zero ID has no database value: the insert fails, in every driver.
	if _, err := d.db.Exec(insert, len(values), T{}, nil); err == nil || !strings.Contains(err.Error(), "zero ID") {
		t.Errorf("insert of the zero ID (%v): %v; want the zero-ID error", opts.DBFormat, err)
	}
	check := func(rows *sql.Rows, err error, how string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		k := 0
		for rows.Next() {
			var id T
			var n sql.Null[T]
			var p *T
			if err := rows.Scan(&id, &n, &p); err != nil {
				t.Fatalf("%s: scan row %d: %v", how, k, err)
			}
			want := T(once.FromUint64(values[k]))
			if id != want {
				t.Errorf("%s: row %d: id %d, want %d", how, k, id.Uint64(), values[k])
			}
			null := k%3 == 0 || k%3 == 2 && k%2 == 0
			if n.Valid == null || n.Valid && n.V != want || (p == nil) != null || p != nil && *p != want {
				t.Errorf("%s: row %d: nullable %+v / %v, want null=%v %d", how, k, n, p, null, values[k])
			}
			k++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if k != len(values) {
			t.Errorf("%s: %d rows, want %d", how, k, len(values))
		}
	}
	sel := fmt.Sprintf("SELECT id, n, n FROM %s WHERE k >= %s ORDER BY k", table, d.ph(1))
	rows, err := d.db.Query(sel, 0)
	check(rows, err, "with args")
	if d.textProtocol {
		rows, err := d.db.Query(fmt.Sprintf("SELECT id, n, n FROM %s ORDER BY k", table))
		check(rows, err, "text protocol")
	}

	// The column holds the stored value (never the masked one), spelled
	// as the DB format says.
	var stored string
	q := fmt.Sprintf("SELECT CAST(id AS CHAR(40)) FROM %s WHERE k = %s", table, d.ph(1))
	if d.name == "postgres" || d.name == "sqlite" {
		q = fmt.Sprintf("SELECT CAST(id AS TEXT) FROM %s WHERE k = %s", table, d.ph(1))
	}
	for k, v := range values {
		if opts.DBFormat == once.Raw {
			break
		}
		if err := d.db.QueryRow(q, k).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		want, err := once.Options{Format: opts.DBFormat, Prefix: persisted(opts)}.AppendText(nil, once.FromUint64(v))
		if err != nil {
			t.Fatal(err)
		}
		if opts.DBFormat == 0 { // signed
			want = strconv.AppendInt(nil, int64(v), 10)
		}
		if stored != string(want) {
			t.Errorf("row %d: column holds %q, want %q", k, stored, want)
		}
	}

	// NULL into a non-nullable ID is an error.
	var id T
	err = d.db.QueryRow(fmt.Sprintf("SELECT n FROM %s WHERE k = %s", table, d.ph(1)), 0).Scan(&id)
	if !errors.Is(err, once.ErrInvalid) {
		t.Errorf("NULL into %T: %v", id, err)
	}
}

func persisted(o once.Options) string {
	if o.PersistPrefix {
		return o.Prefix
	}
	return ""
}

// sqlCasePlain: once.ID in a bigint column, and reading it back as int64.
func sqlCasePlain(t *testing.T, d dialect) {
	table := createTable(t, d, d.signed)
	for k, v := range testValues() {
		id := once.FromUint64(v)
		if _, err := d.db.Exec(fmt.Sprintf("INSERT INTO %s (k, id, n) VALUES (%s, %s, %s)", table, d.ph(1), d.ph(2), d.ph(3)),
			k, id, &id); err != nil {
			t.Fatal(err)
		}
		var back once.ID
		var p *once.ID
		var raw int64
		if err := d.db.QueryRow(fmt.Sprintf("SELECT id, n, id FROM %s WHERE k = %s", table, d.ph(1)), k).Scan(&back, &p, &raw); err != nil {
			t.Fatal(err)
		}
		if back != id || p == nil || *p != id || raw != int64(v) {
			t.Errorf("%d: got %v %v %d", v, back, p, raw)
		}
	}
}

// sqlCaseMasked: a masked type stores the plaintext.
func sqlCaseMasked(t *testing.T, d dialect) {
	maskBinding.Set(keyFactory(t, testBaseKey, nonce.Blowfish))
	defer maskBinding.Set(nil)
	table := createTable(t, d, d.signed)
	id := MaskedID(once.FromUint64(12345))
	if _, err := d.db.Exec(fmt.Sprintf("INSERT INTO %s (k, id) VALUES (%s, %s)", table, d.ph(1), d.ph(2)), 1, id); err != nil {
		t.Fatal(err)
	}
	var raw int64
	var back MaskedID
	if err := d.db.QueryRow(fmt.Sprintf("SELECT id, id FROM %s", table)).Scan(&raw, &back); err != nil {
		t.Fatal(err)
	}
	if raw != 12345 || back != id {
		t.Errorf("masked ID stored as %d, read back as %v", raw, back)
	}
}
