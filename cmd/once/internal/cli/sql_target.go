package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/once-go/once/migrations"
)

// checkTarget refuses an install that would not do what the DSN asks: on
// PostgreSQL, a search_path whose first schema does not exist (PostgreSQL
// would create the functions in the next one that does); on MySQL, a DSN
// without a database. A function of one of the names that once did not
// install is the library's to refuse (migrations.ErrForeignFunction),
// under its install lock.
func checkTarget(ctx context.Context, db *sql.DB, d migrations.Dialect) error {
	var schema sql.NullString
	if d == migrations.Postgres {
		var path, user string
		if err := db.QueryRowContext(ctx, "SELECT current_schema(), current_setting('search_path'), current_user").Scan(&schema, &path, &user); err != nil {
			return fmt.Errorf("reading the search_path: %w", err)
		}
		return checkSearchPath(path, user, schema)
	}
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema); err != nil {
		return fmt.Errorf("reading the database: %w", err)
	}
	if !schema.Valid {
		return usageError(errors.New("--dsn names no database to install into (USER@tcp(HOST:3306)/DB)"))
	}
	return nil
}

// checkSearchPath checks that schema, PostgreSQL's current_schema(), is
// the first schema that search_path path names ($user being user's, when
// that exists): PostgreSQL skips the schemas that do not exist.
func checkSearchPath(path, user string, schema sql.NullString) error {
	elems, ok := splitSearchPath(path)
	if !ok {
		return fmt.Errorf("cannot read the search_path %s", quoteValue(path))
	}
	for _, e := range elems {
		if e == "$user" {
			if schema.Valid && schema.String == user {
				return nil
			}
			continue
		}
		if schema.Valid && schema.String == e {
			return nil
		}
		if !schema.Valid {
			return fmt.Errorf("schema %s, the first of the search_path, does not exist, nor does any other of it: create it or correct the search_path of --dsn", sqlName(migrations.Postgres, e))
		}
		return fmt.Errorf("schema %s, the first of the search_path, does not exist, so PostgreSQL would create the functions in %s: create it or correct the search_path of --dsn",
			sqlName(migrations.Postgres, e), sqlName(migrations.Postgres, schema.String))
	}
	if !schema.Valid {
		return fmt.Errorf("the search_path %s names no schema that exists: set one in --dsn (search_path=...)", quoteValue(path))
	}
	return nil
}

// splitSearchPath splits a search_path setting into its schema names as
// PostgreSQL reads it: comma-separated identifiers, quoted ones with ""
// for a quote, unquoted ones folded to lower case (ASCII letters).
func splitSearchPath(s string) ([]string, bool) {
	const space = " \t\n\r\f\v"
	var out []string
	for {
		s = strings.TrimLeft(s, space)
		if s == "" {
			return out, true
		}
		var name string
		if s[0] == '"' {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, false
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			name, s = b.String(), s[i:]
		} else {
			j := strings.IndexAny(s, ","+space)
			if j < 0 {
				j = len(s)
			}
			name, s = asciiLower(s[:j]), s[j:]
		}
		if name == "" {
			return nil, false
		}
		out = append(out, name)
		s = strings.TrimLeft(s, space)
		if s == "" {
			return out, true
		}
		if s[0] != ',' {
			return nil, false
		}
		s = s[1:]
	}
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// sqlName spells a schema or database name for a message as the dialect
// quotes an identifier, so that it can be pasted into SQL; a name with a
// character that does not print is Go-quoted instead.
func sqlName(d migrations.Dialect, s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	if d == migrations.MySQL {
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
