package migrations

import "github.com/once-go/once/nonce"

// DefaultTable is the table name the embedded files use and the default of
// [github.com/once-go/once/lease/sqllease]. The Elixir library's default is
// "no_noncense_leases"; pass it to share that table.
const DefaultTable = "once_leases"

// Rows is the number of rows (machine IDs 0..Rows-1) the table holds: one
// per machine ID of the nonce layout.
const Rows = nonce.MaxMachineID + 1

// maxTableLen is PostgreSQL's identifier limit (MySQL allows 64).
const maxTableLen = 63

// ValidateTable checks that name is a plain lowercase SQL identifier:
// 1 to 63 bytes of a-z, 0-9 and _, not starting with a digit. Such a name
// means the same table in all three databases whether quoted or not (no case
// folding surprises), and never needs escaping. Schema-qualified names are
// not accepted; set the connection's search path or database instead.
func ValidateTable(name string) error {
	if name == "" {
		return configError("empty table name")
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
			return configError("table name " + quote(name) + " is not a plain lowercase identifier ([a-z_][a-z0-9_]*)")
		}
	}
	return nil
}

// QuoteTable validates name and returns it quoted for d: "name" for
// PostgreSQL and SQLite, `name` for MySQL. Quoting lets reserved words such
// as "order" work as table names.
func QuoteTable(d Dialect, name string) (string, error) {
	if err := ValidateTable(name); err != nil {
		return "", err
	}
	switch d {
	case Postgres, SQLite:
		return `"` + name + `"`, nil
	case MySQL:
		return "`" + name + "`", nil
	}
	return "", configError("unknown dialect " + d.String())
}
