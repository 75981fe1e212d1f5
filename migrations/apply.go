package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"
)

// Apply creates table for dialect d, fills it with its 512 free rows and
// adds the holder column to it if it lacks one. A zero d is detected from
// db's driver ([DetectDialect]); a d that contradicts a recognised driver
// is [ErrConfig] and nothing runs. It is idempotent: an existing table is
// kept (CREATE TABLE IF NOT EXISTS), only missing rows are inserted and
// the column is added only when missing, so running it at every start, or
// from several processes at once, is harmless. The embedded up files are
// used with once_leases replaced by the validated, quoted table name; an
// empty table name means [DefaultTable]; schema.table names a PostgreSQL
// table in that schema.
//
// Before it fills a table that already exists, Apply checks its key
// ([CheckKey]): on a table whose id is not a unique key it inserts
// nothing and returns an error matching [ErrConfig] that names the SQL
// that adds the key (it would otherwise add a second row, a second
// lease, for every machine ID).
//
// On PostgreSQL the statements run in one transaction holding an advisory
// lock keyed by the table name, so concurrent Apply calls do not trip over
// each other's CREATE TABLE. On MySQL and SQLite each statement runs on its
// own (MySQL commits DDL implicitly); both are safe to race there.
func Apply(ctx context.Context, db *sql.DB, d Dialect, table string) error {
	return run(ctx, db, d, table, "apply")
}

// Down drops table (DROP TABLE IF EXISTS), taking every lease with it. An
// empty table name means [DefaultTable]; d is found as for [Apply].
func Down(ctx context.Context, db *sql.DB, d Dialect, table string) error {
	return run(ctx, db, d, table, "down")
}

// Statements returns the SQL statements [Apply] (up) or [Down] (!up) runs
// for d and table when the table does not exist yet, in order, without
// trailing semicolons: up, those of the embedded up files in version
// order (create, fill, add the holder column); down, DROP TABLE.
func Statements(d Dialect, table string, up bool) ([]string, error) {
	if !up {
		return statements(d, table, downFile)
	}
	var out []string
	for _, f := range []string{upFile, holderUpFile} {
		stmts, err := statements(d, table, f)
		if err != nil {
			return nil, err
		}
		out = append(out, stmts...)
	}
	return out, nil
}

func statements(d Dialect, table, file string) ([]string, error) {
	if table == "" {
		table = DefaultTable
	}
	quoted, err := QuoteTable(d, table)
	if err != nil {
		return nil, err
	}
	src, err := fs.ReadFile(files, d.String()+"/"+file)
	if err != nil {
		return nil, fmt.Errorf("migrations: read embedded %s/%s: %w", d, file, err)
	}
	return split(strings.ReplaceAll(string(src), DefaultTable, quoted)), nil
}

// split cuts a migration file into statements: full-line "--" comments are
// dropped and a statement ends with a line ending in ";". The embedded files
// are written to this rule (no semicolons inside literals).
func split(src string) []string {
	var out []string
	var cur strings.Builder
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// execer runs statements: a *sql.DB, or a transaction on PostgreSQL.
type execer interface {
	Querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func run(ctx context.Context, db *sql.DB, d Dialect, table, what string) error {
	if db == nil {
		return configError("nil *sql.DB")
	}
	d, err := dialectFor(db, d)
	if err != nil {
		return err
	}
	if table == "" {
		table = DefaultTable
	}
	if _, err := QuoteTable(d, table); err != nil {
		return err
	}
	if d != Postgres {
		return steps(ctx, db, d, table, what)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrations: %s %s table %s: begin: %w", what, d, table, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "once.migrations:"+table); err != nil {
		return fmt.Errorf("migrations: %s %s table %s: lock: %w", what, d, table, err)
	}
	if err := steps(ctx, tx, d, table, what); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrations: %s %s table %s: commit: %w", what, d, table, err)
	}
	return nil
}

// steps runs Down's statement, or Apply's: create the table, check its
// key, fill it, add the holder column.
func steps(ctx context.Context, db execer, d Dialect, table, what string) error {
	exec := func(stmts []string) error {
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("migrations: %s %s table %s: %w", what, d, table, err)
			}
		}
		return nil
	}
	if what == "down" {
		stmts, err := statements(d, table, downFile)
		if err != nil {
			return err
		}
		return exec(stmts)
	}
	stmts, err := statements(d, table, upFile)
	if err != nil {
		return err
	}
	create, fill := stmts[:1], stmts[1:]
	if err := exec(create); err != nil {
		return err
	}
	if err := CheckKey(ctx, db, d, table); err != nil {
		return err // it names the table
	}
	if err := exec(fill); err != nil {
		return err
	}
	if err := addHolder(ctx, db, d, table); err != nil {
		return fmt.Errorf("migrations: %s %s table %s: add column holder: %w", what, d, table, err)
	}
	return nil
}
