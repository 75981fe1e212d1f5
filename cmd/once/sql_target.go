package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/once-go/once/migrations"
)

// checkTarget refuses an install that would not do what the DSN asks: on
// PostgreSQL, a search_path whose first schema does not exist (PostgreSQL
// would create the functions in the next one that does); on MySQL, a DSN
// without a database; and, in the schema the functions would go to, a
// function of one of their names that once did not install (its comment
// does not start "once: "), which the install would replace (PostgreSQL:
// CREATE OR REPLACE) or drop (MySQL: DROP FUNCTION IF EXISTS).
func checkTarget(ctx context.Context, db *sql.DB, d migrations.Dialect) error {
	names := "'" + strings.Join(migrations.FunctionNames(), "', '") + "'"
	var schema sql.NullString
	var q string
	if d == migrations.Postgres {
		var path, user string
		if err := db.QueryRowContext(ctx, "SELECT current_schema(), current_setting('search_path'), current_user").Scan(&schema, &path, &user); err != nil {
			return fmt.Errorf("reading the search_path: %w", err)
		}
		if err := checkSearchPath(path, user, schema); err != nil {
			return err
		}
		q = `SELECT p.oid::regprocedure::text, coalesce(obj_description(p.oid, 'pg_proc'), '')
			FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
			WHERE n.nspname = current_schema() AND p.proname IN (` + names + `)
			ORDER BY 1`
	} else {
		if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema); err != nil {
			return fmt.Errorf("reading the database: %w", err)
		}
		if !schema.Valid {
			return usageError{fmt.Errorf("--dsn names no database to install into (USER@tcp(HOST:3306)/DB)")}
		}
		q = `SELECT ROUTINE_NAME, coalesce(ROUTINE_COMMENT, '') FROM information_schema.ROUTINES
			WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_TYPE = 'FUNCTION' AND ROUTINE_NAME IN (` + names + `)
			ORDER BY 1`
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("reading the functions of %s: %w", sqlName(d, schema.String), err)
	}
	defer rows.Close()
	var foreign []string
	for rows.Next() {
		var fn, comment string
		if err := rows.Scan(&fn, &comment); err != nil {
			return err
		}
		if !strings.HasPrefix(comment, "once: ") {
			foreign = append(foreign, fn)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(foreign) > 0 {
		what := "schema"
		if d == migrations.MySQL {
			what = "database"
		}
		return fmt.Errorf("%s %s has %s, which once did not install (its comment does not start \"once: \"): refusing to replace it; drop or rename it, or install into another %s",
			what, sqlName(d, schema.String), strings.Join(foreign, ", "), what)
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
