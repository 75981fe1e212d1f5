package idfield

import (
	"strconv"

	"github.com/once-go/once/once"
)

// Dialect is an SQL database family, as the adapters tell them apart.
type Dialect uint8

// Dialects.
const (
	Postgres Dialect = iota + 1
	MySQL            // MySQL and MariaDB
	SQLite
)

// DialectOf maps an ORM's dialect name ("postgres", "pg", "mysql",
// "sqlite", "sqlite3", ...) to a Dialect; 0 when unknown.
func DialectOf(name string) Dialect {
	switch name {
	case "postgres", "pg", "postgresql", "pgx":
		return Postgres
	case "mysql", "mariadb":
		return MySQL
	case "sqlite", "sqlite3":
		return SQLite
	}
	return 0
}

// SQLType returns the column type that holds IDs with options o in dialect
// d, by DB format:
//
//	DB format    PostgreSQL         MySQL/MariaDB                               SQLite
//	signed       bigint             bigint                                      integer
//	unsigned     numeric(20)        bigint unsigned                             text
//	raw          bytea              binary(8+p)                                 blob
//	url64/hex/   varchar(n)         varchar(n) character set ascii              text
//	hex32        collate "C"        collate ascii_bin
//
// where n is the text length (11, 16, 13) and p the prefix length when the
// prefix is persisted. Text columns compare bytes exactly (url64 is case
// sensitive). SQLite integers are signed, so unsigned IDs from 2^63 up are
// kept as decimal text there. It returns "" for an unknown dialect or
// invalid options.
func SQLType(d Dialect, o once.Options) string {
	if o.Check() != nil {
		return ""
	}
	db := o.DBFormat
	if db == 0 {
		db = once.Signed
	}
	p := 0
	if o.PersistPrefix {
		p = len(o.Prefix)
	}
	switch db {
	case once.Signed:
		switch d {
		case Postgres, MySQL:
			return "bigint"
		case SQLite:
			return "integer"
		}
	case once.Unsigned:
		switch d {
		case Postgres:
			return "numeric(20)"
		case MySQL:
			return "bigint unsigned"
		case SQLite:
			return "text"
		}
	case once.Raw:
		switch d {
		case Postgres:
			return "bytea"
		case MySQL:
			return "binary(" + strconv.Itoa(8+p) + ")"
		case SQLite:
			return "blob"
		}
	default:
		n := strconv.Itoa(TextLen(db) + p)
		switch d {
		case Postgres:
			return `varchar(` + n + `) collate "C"`
		case MySQL:
			return "varchar(" + n + ") character set ascii collate ascii_bin"
		case SQLite:
			return "text"
		}
	}
	return ""
}

// Size is the column size that matches SQLType for fixed-size columns
// (varchar and binary lengths), else 0.
func Size(d Dialect, o once.Options) int {
	p := 0
	if o.PersistPrefix {
		p = len(o.Prefix)
	}
	switch o.DBFormat {
	case once.URL64, once.Hex, once.Hex32:
		if d == SQLite {
			return 0
		}
		return TextLen(o.DBFormat) + p
	case once.Raw:
		if d == MySQL {
			return 8 + p
		}
	}
	return 0
}

// TextLen is the length of the text spellings of a text format.
func TextLen(f once.Format) int {
	switch f {
	case once.URL64:
		return 11
	case once.Hex:
		return 16
	case once.Hex32:
		return 13
	}
	return 0
}
