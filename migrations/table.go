package migrations

import (
	"strings"

	"github.com/once-go/once/nonce"
)

// DefaultTable is the table name the embedded files use and the default of
// [github.com/once-go/once/lease/sqllease]. The Elixir library's default is
// "no_noncense_leases"; pass it to share that table.
const DefaultTable = "once_leases"

// Rows is the number of rows (machine IDs 0..Rows-1) the table holds: one
// per machine ID of the nonce layout.
const Rows = nonce.MaxMachineID + 1

// maxTableLen is PostgreSQL's identifier limit (MySQL allows 64).
const maxTableLen = 63

// ValidateTable checks that name is a plain lowercase SQL identifier (1 to
// 63 bytes of a-z, 0-9 and _, not starting with a digit), or two of them
// joined by a dot, schema.table, which only PostgreSQL takes (see
// [QuoteTable]). Such a name means the same table in all three databases
// whether quoted or not (no case folding surprises), and never needs
// escaping.
func ValidateTable(name string) error {
	if name == "" {
		return configError("empty table name")
	}
	schema, table, qualified := strings.Cut(name, ".")
	if !qualified {
		return validateIdent(name)
	}
	if err := validateIdent(schema); err != nil {
		return err
	}
	return validateIdent(table)
}

func validateIdent(name string) error {
	if name == "" {
		return configError("table name has an empty part")
	}
	if len(name) > maxTableLen {
		return configError("table name " + quote(name) + " is longer than 63 bytes")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return configError("table name " + quote(name) + " is not a plain lowercase identifier ([a-z_][a-z0-9_]*, or schema.table on PostgreSQL)")
		}
	}
	return nil
}

// QuoteTable validates name and returns it quoted for d: "name" for
// PostgreSQL and SQLite, `name` for MySQL; "schema"."name" for a
// schema-qualified name, which only PostgreSQL takes (on MySQL the DSN's
// database decides, on SQLite the file). Quoting lets reserved words such
// as "order" work as table names.
func QuoteTable(d Dialect, name string) (string, error) {
	if err := ValidateTable(name); err != nil {
		return "", err
	}
	schema, table, qualified := strings.Cut(name, ".")
	switch {
	case d == Postgres && qualified:
		return `"` + schema + `"."` + table + `"`, nil
	case d == Postgres, d == SQLite && !qualified:
		return `"` + name + `"`, nil
	case d == MySQL && !qualified:
		return "`" + name + "`", nil
	case d == MySQL, d == SQLite:
		return "", configError("table name " + quote(name) + ": a schema-qualified name is for PostgreSQL only; on " + d.String() +
			" the connection's database decides the table's place")
	}
	return "", configError("unknown dialect " + d.String())
}
