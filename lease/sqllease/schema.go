package sqllease

import (
	"context"
	"strconv"
	"strings"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// ready checks the table once, before the strategy's first write (Acquire,
// Renew, Reclaim): its column types (checkColumns) and, on a table shared
// with the Elixir library, the database's default time zone (checkZone).
// A check that fails with ErrRetry runs again on the next call; one that
// passed is not repeated.
func (s *Strategy) ready(ctx context.Context) error {
	if s.checked.Load() {
		return nil
	}
	if err := s.checkColumns(ctx); err != nil {
		return err
	}
	if s.shared() && s.dialect != migrations.SQLite {
		if err := s.checkZone(ctx); err != nil {
			return err
		}
	}
	s.checked.Store(true)
	return nil
}

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

// checkColumns reads the table's column types and refuses a table whose
// columns the strategy cannot read and write exactly.
func (s *Strategy) checkColumns(ctx context.Context) error {
	const op = "check table"
	var query string
	arg := s.opts.Table
	switch s.dialect {
	case migrations.Postgres:
		// to_regclass resolves the name through search_path, as the
		// strategy's statements do.
		query = `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
			WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`
		arg = `"` + s.opts.Table + `"`
	case migrations.MySQL:
		query = `SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
	default:
		query = `SELECT name, type FROM pragma_table_info(?)`
	}
	rows, err := s.db.QueryContext(ctx, query, arg)
	if err != nil {
		return fail(ctx, op+" "+s.opts.Table, s.opts.Table, err)
	}
	defer rows.Close()
	found := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return fail(ctx, op+" "+s.opts.Table, s.opts.Table, err)
		}
		found[strings.ToLower(name)] = typ
	}
	if err := rows.Err(); err != nil {
		return fail(ctx, op+" "+s.opts.Table, s.opts.Table, err)
	}
	if len(found) == 0 {
		return leasekit.Errorf(pkg, lease.ErrConfig, "table %s not found (create it with migrations.Apply or `once lease migrate`)", s.opts.Table)
	}
	for _, c := range columns(s.dialect) {
		typ, ok := found[c.name]
		switch {
		case !ok:
			return leasekit.Errorf(pkg, lease.ErrConfig, "table %s has no column %s (expected %s; create the table with migrations.Apply)",
				s.opts.Table, c.name, c.wanted)
		case !c.ok(strings.ToLower(typ)):
			why := "a type the strategy cannot read and write exactly"
			if c.name == "expires_at" {
				why = "expires_at must hold UTC with microseconds and never be converted by a session's time zone," +
					" or sessions in different zones hold one machine ID twice"
			}
			return leasekit.Errorf(pkg, lease.ErrConfig, "table %s: column %s is %s, expected %s (%s)",
				s.opts.Table, c.name, leasekit.Quote(typ), c.wanted, why)
		}
	}
	return nil
}
