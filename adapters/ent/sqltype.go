package oncent

import (
	"strconv"

	"entgo.io/ent/dialect"

	"github.com/once-go/once/once"
)

// schemaTypes returns the column type per ent dialect for IDs with options
// o (valid options; see the package documentation for the table).
func schemaTypes(o once.Options) map[string]string {
	p := 0
	if o.PersistPrefix {
		p = len(o.Prefix)
	}
	switch o.DBFormat {
	case 0, once.Signed:
		return types("bigint", "bigint", "integer")
	case once.Unsigned:
		return types("numeric(20)", "bigint unsigned", "text")
	case once.Raw:
		return types("bytea", "binary("+strconv.Itoa(8+p)+")", "blob")
	}
	n := strconv.Itoa(textLen(o.DBFormat) + p)
	return types("varchar("+n+")", "varbinary("+n+")", "text")
}

func types(postgres, mysql, sqlite string) map[string]string {
	return map[string]string{dialect.Postgres: postgres, dialect.MySQL: mysql, dialect.SQLite: sqlite}
}

// textLen is the length of the text spellings of a text format.
func textLen(f once.Format) int {
	switch f {
	case once.Hex:
		return 16
	case once.Hex32:
		return 13
	}
	return 11 // URL64
}
