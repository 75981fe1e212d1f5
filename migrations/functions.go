package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
)

//go:embed functions/postgres.sql functions/mysql.sql
var functionFiles embed.FS

// FunctionNames returns the names of the SQL functions that
// [InstallFunctions] creates:
//
//	once_format(v bigint, prefix text DEFAULT '') -> text
//	once_parse(s text, prefix text DEFAULT '') -> bigint
//	once_time(v bigint) -> timestamp
//	once_machine_id(v bigint) -> int
//	once_min_id(t timestamp) -> bigint
//
// once_format spells a stored value in url64 with a prefix, as
// once.Options{Prefix: prefix}.AppendText does; once_parse reads such a
// spelling back as strictly as once.ParseAs (exactly the prefix, then the
// canonical 11 characters; anything else, 0 included, is an error);
// once_time and once_machine_id take a value apart (UTC, milliseconds, the
// default epoch 2025-01-01); once_min_id(t) is the lowest value whose
// timestamp is at or after t, for range queries and partition bounds.
//
// MySQL has no default arguments: there once_format and once_parse always
// take the prefix (an empty string for none), times are DATETIME in UTC,
// and values are BIGINT (a BIGINT UNSIGNED column goes in as
// CAST(id AS SIGNED)).
//
// The functions see stored values, never masked ones: an ID that an API
// shows masked must be unmasked with the key first (once unmask).
func FunctionNames() []string {
	return []string{"once_format", "once_parse", "once_time", "once_machine_id", "once_min_id"}
}

// FunctionsSQL returns the script that [InstallFunctions] runs for d, for
// psql -f or the mysql client (its MySQL text sets DELIMITER $$ around the
// function bodies, as the mysql client needs). Running it again replaces
// the functions with the same definitions. The script itself checks
// nothing and takes no lock: unlike [InstallFunctions] it replaces (MySQL:
// drops, then creates) a function of one of the names that once did not
// install. SQLite has none: [ErrConfig].
func FunctionsSQL(d Dialect) (string, error) {
	switch d {
	case Postgres, MySQL:
		b, err := functionFiles.ReadFile("functions/" + d.String() + ".sql")
		return string(b), err
	case SQLite:
		return "", errNoSQLiteFunctions
	}
	return "", configError("unknown dialect " + d.String())
}

var errNoSQLiteFunctions = configError("SQLite cannot define functions in SQL; once_format and the others exist for PostgreSQL and MySQL/MariaDB")

// InstallFunctions creates the functions of [FunctionNames] in db's current
// schema (PostgreSQL: the first schema of the search_path) or database
// (MySQL), replacing once's earlier definitions. It is idempotent, and
// safe to run at every start and from several processes at once: on
// PostgreSQL the statements run in one transaction under an advisory
// lock, on MySQL under GET_LOCK('once.functions') on one connection. MySQL cannot replace a
// function in one statement (DROP FUNCTION IF EXISTS, then CREATE
// FUNCTION), so there an install that would change nothing (every body and
// comment as in the script) changes nothing. A zero d is detected from
// db's driver, as for [Apply].
//
// A function of one of the names (of any signature) that once did not
// install, its comment not starting "once: ", is left alone: the install
// fails with [ErrForeignFunction], naming it and the schema, and changes
// nothing. The check runs under the lock, in the transaction (MySQL: on
// the connection) of the install.
//
// The user needs the right to create functions: PostgreSQL CREATE on the
// schema; MySQL CREATE ROUTINE and ALTER ROUTINE, and with binary logging
// on, SUPER or log_bin_trust_function_creators=1 (the functions are
// DETERMINISTIC and NO SQL).
func InstallFunctions(ctx context.Context, db *sql.DB, d Dialect) error {
	d, err := functionsDialect(db, d)
	if err != nil {
		return err
	}
	src, err := FunctionsSQL(d)
	if err != nil {
		return err
	}
	return runFunctions(ctx, db, d, "install", splitScript(src, d == Postgres))
}

// querier is a *sql.Tx or *sql.Conn: the session that holds the install
// lock.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// checkForeign returns an [ErrForeignFunction] error when the schema
// (database) of q has a function of one of the names of [FunctionNames],
// of any signature, whose comment does not start "once: ": the install
// would replace it (PostgreSQL: CREATE OR REPLACE; MySQL: DROP, then
// CREATE), the drop drop it, and on PostgreSQL an overload of another
// signature would make calls ambiguous. It runs under the install lock,
// in the session of the statements, so that no other install runs between
// the check and them.
func checkForeign(ctx context.Context, q querier, d Dialect, what string) error {
	names := "'" + strings.Join(FunctionNames(), "', '") + "'"
	list := `SELECT p.oid::regprocedure::text, coalesce(obj_description(p.oid, 'pg_proc'), ''), current_schema()
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.proname IN (` + names + `)
		ORDER BY 1`
	if d == MySQL {
		list = `SELECT ROUTINE_NAME, coalesce(ROUTINE_COMMENT, ''), DATABASE() FROM information_schema.ROUTINES
			WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_TYPE = 'FUNCTION' AND LOWER(ROUTINE_NAME) IN (` + names + `)
			ORDER BY 1`
	}
	rows, err := q.QueryContext(ctx, list)
	if err != nil {
		return fmt.Errorf("migrations: %s functions (%s): read the functions of the schema: %w", what, d, err)
	}
	defer rows.Close()
	e := &foreignErr{d: d, what: what}
	for rows.Next() {
		var fn, comment string
		if err := rows.Scan(&fn, &comment, &e.schema); err != nil {
			return fmt.Errorf("migrations: %s functions (%s): read the functions of the schema: %w", what, d, err)
		}
		if !strings.HasPrefix(comment, "once: ") {
			e.functions = append(e.functions, fn)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrations: %s functions (%s): read the functions of the schema: %w", what, d, err)
	}
	if len(e.functions) > 0 {
		return e
	}
	return nil
}

// mysqlCurrent reports whether every function of stmts (a MySQL install
// script) exists in conn's database with the same body and comment, so
// that installing would change nothing. MySQL cannot replace a function in
// one statement: skipping keeps queries of running processes from meeting
// the moment between DROP FUNCTION and CREATE FUNCTION on every start.
func mysqlCurrent(ctx context.Context, conn *sql.Conn, stmts []string) (bool, error) {
	rows, err := conn.QueryContext(ctx, `SELECT ROUTINE_NAME, ROUTINE_DEFINITION, ROUTINE_COMMENT
		FROM information_schema.ROUTINES
		WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_TYPE = 'FUNCTION'
		AND ROUTINE_NAME IN ('once_format', 'once_parse', 'once_time', 'once_machine_id', 'once_min_id')`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	have := map[string]string{}
	for rows.Next() {
		var name, def, comment sql.NullString
		if err := rows.Scan(&name, &def, &comment); err != nil {
			return false, err
		}
		have[strings.ToLower(name.String)] = def.String + "\x00" + comment.String
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	n := 0
	for _, s := range stmts {
		rest, ok := strings.CutPrefix(s, "CREATE FUNCTION ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "(")
		var body, comment string
		for line := range strings.Lines(s) {
			t := strings.TrimSpace(line)
			switch {
			case body != "":
				body += line
			case strings.HasPrefix(t, "COMMENT '"):
				comment = strings.TrimSuffix(strings.TrimPrefix(t, "COMMENT '"), "'")
			case t == "BEGIN" || strings.HasPrefix(t, "RETURN "):
				body = line
			}
		}
		if have[name] != strings.TrimSpace(body)+"\x00"+comment {
			return false, nil
		}
		n++
	}
	return n == len(FunctionNames()), nil
}

// DropFunctions drops the functions of [FunctionNames] (DROP FUNCTION IF
// EXISTS), under the lock [InstallFunctions] takes. Objects that use them
// (partition bounds were evaluated once and do not) make PostgreSQL refuse.
// A function of one of the names that once did not install is left alone,
// and nothing dropped: [ErrForeignFunction].
func DropFunctions(ctx context.Context, db *sql.DB, d Dialect) error {
	d, err := functionsDialect(db, d)
	if err != nil {
		return err
	}
	sigs := []string{"once_format(bigint, text)", "once_parse(text, text)", "once_time(bigint)",
		"once_machine_id(bigint)", "once_min_id(timestamp)"}
	stmts := make([]string, len(sigs))
	for i, sig := range sigs {
		if d == MySQL {
			sig, _, _ = strings.Cut(sig, "(")
		}
		stmts[i] = "DROP FUNCTION IF EXISTS " + sig
	}
	return runFunctions(ctx, db, d, "drop", stmts)
}

func functionsDialect(db *sql.DB, d Dialect) (Dialect, error) {
	if db == nil {
		return 0, configError("nil *sql.DB")
	}
	d, err := dialectFor(db, d)
	if err == nil && d == SQLite {
		err = errNoSQLiteFunctions
	}
	return d, err
}

// lockName is the advisory lock that serialises installs.
const lockName = "once.functions"

func runFunctions(ctx context.Context, db *sql.DB, d Dialect, what string, stmts []string) (err error) {
	fail := func(step string, err error) error {
		return fmt.Errorf("migrations: %s functions (%s): %s: %w", what, d, step, hint(err))
	}
	if d == Postgres {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fail("begin", err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", lockName); err != nil {
			return fail("lock", err)
		}
		if err := checkForeign(ctx, tx, d, what); err != nil {
			return err
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fail(firstWords(s), err)
			}
		}
		if err := tx.Commit(); err != nil {
			return fail("commit", err)
		}
		return nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fail("connect", err)
	}
	defer conn.Close()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 60)", lockName).Scan(&got); err != nil {
		return fail("lock", err)
	}
	if got.Int64 != 1 {
		return fail("lock", errors.New("GET_LOCK('"+lockName+"') not granted within 60 s: another install is stuck"))
	}
	defer func() {
		// A fresh context: release the lock even when ctx has ended.
		if _, rerr := conn.ExecContext(context.Background(), "DO RELEASE_LOCK(?)", lockName); rerr != nil && err == nil {
			err = fail("unlock", rerr)
		}
	}()
	if err := checkForeign(ctx, conn, d, what); err != nil {
		return err
	}
	if what == "install" {
		current, err := mysqlCurrent(ctx, conn, stmts)
		if err != nil {
			return fail("read information_schema.ROUTINES", err)
		}
		if current {
			return nil
		}
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fail(firstWords(s), err)
		}
	}
	return nil
}

// hint adds the setting to change to MySQL's refusal to create functions
// while binary logging is on.
func hint(err error) error {
	if msg := err.Error(); strings.Contains(msg, "1419") || strings.Contains(msg, "log_bin_trust_function_creators") {
		return fmt.Errorf("%w (run as a user with SUPER, or SET GLOBAL log_bin_trust_function_creators = 1: the functions are DETERMINISTIC and NO SQL)", err)
	}
	return err
}

// firstWords names a statement in an error: its first line, cut short.
func firstWords(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 60 {
		line = line[:60] + "..."
	}
	return line
}

// splitScript cuts a functions script into statements. A statement ends
// with a line ending in the delimiter (";", or what a mysql-client
// "DELIMITER x" line sets), except inside a PostgreSQL $$ body when
// dollar is set. Comment lines between statements are dropped.
func splitScript(src string, dollar bool) []string {
	var out []string
	var cur strings.Builder
	delim, inBody := ";", false
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "--")) {
			continue
		}
		if cur.Len() == 0 && len(trimmed) > 10 && strings.EqualFold(trimmed[:10], "DELIMITER ") {
			delim = strings.TrimSpace(trimmed[10:])
			continue
		}
		cur.WriteString(line)
		if dollar && strings.Count(line, "$$")%2 == 1 {
			inBody = !inBody
		}
		if !inBody && strings.HasSuffix(trimmed, delim) {
			out = append(out, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cur.String()), delim)))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
