package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"
)

// Apply creates table for dialect d and fills it with its 512 free rows.
// A zero d is detected from db's driver ([DetectDialect]); a d that
// contradicts a recognised driver is [ErrConfig] and nothing runs.
// It is idempotent: an existing table is kept (CREATE TABLE IF NOT EXISTS)
// and only missing rows are inserted, so running it at every start, or from
// several processes at once, is harmless. The embedded up file is used with
// once_leases replaced by the validated, quoted table name; an empty table
// name means [DefaultTable].
//
// On PostgreSQL the statements run in one transaction holding an advisory
// lock keyed by the table name, so concurrent Apply calls do not trip over
// each other's CREATE TABLE. On MySQL and SQLite each statement runs on its
// own (MySQL commits DDL implicitly); both are safe to race there.
func Apply(ctx context.Context, db *sql.DB, d Dialect, table string) error {
	return run(ctx, db, d, table, upFile, "apply")
}

// Down drops table (DROP TABLE IF EXISTS), taking every lease with it. An
// empty table name means [DefaultTable]; d is found as for [Apply].
func Down(ctx context.Context, db *sql.DB, d Dialect, table string) error {
	return run(ctx, db, d, table, downFile, "down")
}

// Statements returns the SQL statements [Apply] (up) or [Down] (!up) would
// run for d and table, in order, without trailing semicolons.
func Statements(d Dialect, table string, up bool) ([]string, error) {
	name := downFile
	if up {
		name = upFile
	}
	return statements(d, table, name)
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

func run(ctx context.Context, db *sql.DB, d Dialect, table, file, what string) error {
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
	stmts, err := statements(d, table, file)
	if err != nil {
		return err
	}
	if d != Postgres {
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("migrations: %s %s table %s: %w", what, d, table, err)
			}
		}
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrations: %s %s table %s: begin: %w", what, d, table, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "once.migrations:"+table); err != nil {
		return fmt.Errorf("migrations: %s %s table %s: lock: %w", what, d, table, err)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("migrations: %s %s table %s: %w", what, d, table, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrations: %s %s table %s: commit: %w", what, d, table, err)
	}
	return nil
}
