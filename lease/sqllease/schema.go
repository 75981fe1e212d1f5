package sqllease

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// column is one expected column: the types accepted (as the database
// spells them, lowercase) and the one to name in a message.
type column struct {
	name   string
	ok     func(typ string) bool
	wanted string
}

// columns lists, per dialect, the types the strategy reads and writes
// exactly. expires_at must hold UTC wall-clock time with microseconds and
// never be converted by a session's time zone: PostgreSQL timestamptz and
// MySQL TIMESTAMP are converted (two sessions in different zones would
// then disagree about which rows are free), and fewer fractional digits
// would round the stored expiry.
func columns(d migrations.Dialect) []column {
	switch d {
	case migrations.Postgres:
		return []column{
			{"id", oneOf("smallint", "integer", "bigint"), "smallint"},
			{"token", oneOf("bytea"), "bytea"},
			{"expires_at", oneOf("timestamp without time zone", "timestamp(6) without time zone"), "timestamp(6) without time zone"},
			{"lock_version", oneOf("integer", "bigint"), "integer"},
		}
	case migrations.MySQL:
		return []column{
			{"id", mysqlInt("smallint", "mediumint", "int", "bigint"), "smallint"},
			{"token", mysqlBytes, "varbinary(16)"},
			{"expires_at", oneOf("datetime(6)"), "datetime(6)"},
			{"lock_version", mysqlInt("int", "bigint"), "int"},
		}
	default:
		// SQLite types are affinities, decided by the declared type's name
		// (any case).
		return []column{
			{"id", contains("INT"), "SMALLINT"},
			{"token", func(t string) bool { return t == "" || contains("BLOB")(t) }, "BLOB"},
			{"expires_at", func(t string) bool {
				return !contains("INT")(t) && (contains("CHAR")(t) || contains("CLOB")(t) || contains("TEXT")(t))
			}, "TEXT"},
			{"lock_version", contains("INT"), "INTEGER"},
		}
	}
}

func oneOf(types ...string) func(string) bool {
	return func(t string) bool {
		for _, x := range types {
			if t == x {
				return true
			}
		}
		return false
	}
}

func contains(part string) func(string) bool {
	return func(t string) bool { return strings.Contains(strings.ToUpper(t), part) }
}

// mysqlInt accepts the integer types named, with or without a display
// width ("int(11)") and signedness.
func mysqlInt(types ...string) func(string) bool {
	return func(t string) bool {
		t = strings.TrimSuffix(t, " unsigned")
		if i := strings.IndexByte(t, '('); i > 0 && strings.HasSuffix(t, ")") {
			t = t[:i]
		}
		return oneOf(types...)(t)
	}
}

// mysqlBytes accepts byte strings that keep a 16-byte token as written:
// VARBINARY(n >= 16), BINARY(16) (a longer BINARY pads with zeros) and the
// BLOB types.
func mysqlBytes(t string) bool {
	if oneOf("binary(16)", "tinyblob", "blob", "mediumblob", "longblob")(t) {
		return true
	}
	n, ok := strings.CutPrefix(t, "varbinary(")
	if !ok || !strings.HasSuffix(n, ")") {
		return false
	}
	size, err := strconv.Atoi(strings.TrimSuffix(n, ")"))
	return err == nil && size >= leasekit.TokenBytes
}

// checkColumns reads the columns of the table t (ref: as the catalog
// query takes it) and refuses a table whose columns the strategy cannot
// read and write exactly. It returns the capacity of the optional holder
// column: 0 when there is none, -1 when unbounded.
func (s *Strategy) checkColumns(ctx context.Context, r runner, t *table) (int, error) {
	const op = "check table"
	var query string
	arg := t.ref
	switch s.dialect {
	case migrations.Postgres:
		query = `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
			WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`
	case migrations.MySQL:
		query = `SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
		arg = s.opts.Table
	default:
		query = `SELECT name, type FROM pragma_table_info(?)`
		arg = s.opts.Table
	}
	found := map[string]string{}
	err := each(ctx, r, query, []any{arg}, func(rows *sql.Rows) error {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return err
		}
		found[strings.ToLower(name)] = typ
		return nil
	})
	if err != nil {
		return 0, fail(ctx, op+" "+t.name, t.name, err)
	}
	if len(found) == 0 {
		return 0, leasekit.Errorf(pkg, driver.ErrConfig, "table %s not found (create it with migrations.Apply or `once lease migrate`)", t.name)
	}
	for _, c := range columns(s.dialect) {
		typ, ok := found[c.name]
		switch {
		case !ok:
			return 0, leasekit.Errorf(pkg, driver.ErrConfig, "table %s has no column %s (expected %s; create the table with migrations.Apply)",
				t.name, c.name, c.wanted)
		case !c.ok(strings.ToLower(typ)):
			why := "a type the strategy cannot read and write exactly"
			if c.name == "expires_at" {
				why = "expires_at must hold UTC with microseconds and never be converted by a session's time zone," +
					" or sessions in different zones hold one machine ID twice"
			}
			return 0, leasekit.Errorf(pkg, driver.ErrConfig, "table %s: column %s is %s, expected %s (%s)",
				t.name, c.name, leasekit.Quote(typ), c.wanted, why)
		}
	}
	typ, ok := found[migrations.HolderColumn]
	if !ok {
		return 0, nil
	}
	size, ok := holderSize(s.dialect, strings.ToLower(typ))
	if !ok || size >= 0 && size < minHolderSize {
		return 0, leasekit.Errorf(pkg, driver.ErrConfig, "table %s: column %s is %s, expected a character type of at least %d characters, such as %s "+
			"(the column is optional: drop it, or let migrations.Apply add it)", t.name, migrations.HolderColumn, leasekit.Quote(typ), minHolderSize, holderType[s.dialect])
	}
	return size, nil
}

// holderType is the holder column's type, as the migrations declare it.
var holderType = map[migrations.Dialect]string{
	migrations.Postgres: "varchar(255)", migrations.MySQL: "varchar(255)", migrations.SQLite: "TEXT",
}

// holderSize returns how many characters a holder column of type typ
// (lowercase) keeps, -1 for no limit, and whether the type is one the
// strategy writes text to as is.
func holderSize(d migrations.Dialect, typ string) (int, bool) {
	if d == migrations.SQLite {
		// Text affinity (or none): the value is stored as written.
		return -1, typ == "" || !contains("INT")(typ) && (contains("CHAR")(typ) || contains("CLOB")(typ) || contains("TEXT")(typ))
	}
	switch typ {
	case "text", "character varying", "tinytext", "mediumtext", "longtext":
		if typ == "tinytext" {
			return 255, true
		}
		return -1, true
	}
	for _, prefix := range []string{"character varying(", "varchar("} {
		if n, ok := strings.CutPrefix(typ, prefix); ok && strings.HasSuffix(n, ")") {
			size, err := strconv.Atoi(strings.TrimSuffix(n, ")"))
			return size, err == nil
		}
	}
	return 0, false
}
