package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/once-go/once/internal/cputime"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// setGenerator makes a counter nonce factory with the fixed machine ID 1 the
// process default generator, which the adapters' once.NewAs draws from. An
// application takes a lease instead (see the README); a benchmark has no
// other process generating in the same ID space.
func setGenerator() error {
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	if err != nil {
		return err
	}
	once.DefaultBinding().Set(f)
	return nil
}

// env is one database: an admin connection on the DSN's own database, a
// private schema (PostgreSQL) or database (MariaDB) created for the run,
// and a *sql.DB whose connections work inside it, shared by the ORMs.
type env struct {
	db        string
	admin     *sql.DB
	sqlDB     *sql.DB
	schema    string
	inserters map[string]inserter
	serverPID int
}

func openEnv(ctx context.Context, c config, dbName string) (_ *env, err error) {
	e := &env{db: dbName, schema: fmt.Sprintf("ormbench_%06x", rand.Uint32()&0xffffff), serverPID: c.serverPID}
	if c.serverPID != 0 && cputime.Of(c.serverPID) < 0 {
		return nil, fmt.Errorf("-server-pid %d: cannot read that process's CPU time (no such process, or not permitted)", c.serverPID)
	}
	driver, dsn := "pgx", c.pgDSN
	if dbName == "mysql" {
		driver, dsn = "mysql", c.mysqlDSN
	}
	if e.admin, err = sql.Open(driver, dsn); err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := e.admin.PingContext(pctx); err != nil {
		e.admin.Close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	create := "CREATE SCHEMA " + e.schema
	if dbName == "mysql" {
		create = "CREATE DATABASE " + e.schema + " CHARACTER SET utf8mb4"
	}
	if _, err := e.admin.ExecContext(ctx, create); err != nil {
		e.admin.Close()
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.close())
		}
	}()
	switch dbName {
	case "postgres":
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, err
		}
		cfg.RuntimeParams["search_path"] = e.schema
		e.sqlDB = stdlib.OpenDB(*cfg)
	case "mysql":
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return nil, err
		}
		cfg.DBName = e.schema
		if e.sqlDB, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
			return nil, err
		}
	}
	e.sqlDB.SetMaxOpenConns(2)
	e.sqlDB.SetMaxIdleConns(2)
	e.inserters = map[string]inserter{}
	for _, orm := range c.orms {
		var ins inserter
		switch orm {
		case "gorm":
			ins, err = newGORM(dbName, e.sqlDB, c.prepare)
		case "bun":
			ins, err = newBun(dbName, e.sqlDB, c.prepare)
		case "ent":
			ins, err = newEnt(dbName, e.sqlDB, c.prepare)
		case "sql":
			ins, err = newSQL(dbName, e.sqlDB, c.prepare)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", orm, err)
		}
		e.inserters[orm] = ins
	}
	return e, nil
}

// close drops the run's schema or database with every table left in it,
// on a fresh context so that it also runs after an interrupt.
func (e *env) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if e.sqlDB != nil {
		errs = append(errs, e.sqlDB.Close())
	}
	drop := "DROP SCHEMA IF EXISTS " + e.schema + " CASCADE"
	if e.db == "mysql" {
		drop = "DROP DATABASE IF EXISTS " + e.schema
	}
	if _, err := e.admin.ExecContext(ctx, drop); err != nil {
		errs = append(errs, fmt.Errorf("drop %s: %w", e.schema, err))
	}
	errs = append(errs, e.admin.Close())
	return errors.Join(errs...)
}

// tables names the table of each key type; the ORMs' models use the same
// names.
var tables = map[string]string{"once": "once_rows", "auto": "auto_rows", "uuidv7": "uuid_rows"}

// createTable returns the DDL of key's table: the same for every ORM, with
// the payload columns n and s of every key type.
func createTable(db, key string) string {
	if db == "mysql" {
		id := map[string]string{
			"once":   "BIGINT NOT NULL PRIMARY KEY",
			"auto":   "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY",
			"uuidv7": "BINARY(16) NOT NULL PRIMARY KEY",
		}[key]
		return fmt.Sprintf("CREATE TABLE %s (id %s, n BIGINT NOT NULL, s VARCHAR(32) CHARACTER SET ascii NOT NULL) ENGINE=InnoDB", tables[key], id)
	}
	id := map[string]string{
		"once":   "bigint PRIMARY KEY",
		"auto":   "bigserial PRIMARY KEY",
		"uuidv7": "uuid PRIMARY KEY",
	}[key]
	return fmt.Sprintf("CREATE TABLE %s (id %s, n bigint NOT NULL, s varchar(32) NOT NULL)", tables[key], id)
}

// sample is one configuration's measurement in one round.
type sample struct {
	rows           int
	seconds        float64
	allocsPerRow   float64
	bytesPerRow    float64
	cpuUsPerRow    float64 // this process's CPU time per row, µs; -1 where it cannot be read
	serverUsPerRow float64 // the database server's CPU time per row, µs; -1 where not read
}

// measure creates key's table, inserts rows rows through ins in INSERTs of
// batch rows, checks the row count, and drops the table. The time is the
// wall time of the inserts alone; allocations are the process's heap
// allocations (runtime.MemStats.Mallocs) during them, divided by rows; the
// CPU time is this process's (ORM, adapter, driver and GC, all threads;
// not the database server's), which unlike wall time does not grow when
// other processes compete for the CPUs; with -server-pid, the server's
// too (every thread; other clients' work included, so run it alone).
func (e *env) measure(ctx context.Context, ins inserter, key string, rows, batch int) (sample, error) {
	table := tables[key]
	if _, err := e.sqlDB.ExecContext(ctx, createTable(e.db, key)); err != nil {
		return sample{}, fmt.Errorf("create table: %w", err)
	}
	defer e.sqlDB.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+table)

	ps := payloads(rows)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, srv0 := cputime.Process(), cputime.Of(e.serverPID)
	start := time.Now()
	err := ins.insert(ctx, key, ps, batch)
	elapsed := time.Since(start)
	cpu1, srv1 := cputime.Process(), cputime.Of(e.serverPID)
	runtime.ReadMemStats(&after)
	if err != nil {
		return sample{}, err
	}
	var n int
	if err := e.sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		return sample{}, err
	}
	if n != rows {
		return sample{}, fmt.Errorf("table has %d rows, want %d", n, rows)
	}
	s := sample{
		rows:           rows,
		seconds:        elapsed.Seconds(),
		allocsPerRow:   float64(after.Mallocs-before.Mallocs) / float64(rows),
		bytesPerRow:    float64(after.TotalAlloc-before.TotalAlloc) / float64(rows),
		cpuUsPerRow:    -1,
		serverUsPerRow: -1,
	}
	if cpu0 >= 0 && cpu1 >= 0 {
		s.cpuUsPerRow = float64(cpu1-cpu0) / 1e3 / float64(rows)
	}
	if srv0 >= 0 && srv1 >= 0 {
		s.serverUsPerRow = float64(srv1-srv0) / 1e3 / float64(rows)
	}
	return s, nil
}

// payloads returns the 32-character text of rows 0..n-1, made before the
// timed part so that its allocations are not counted.
func payloads(n int) []string {
	ps := make([]string, n)
	for i := range ps {
		x := uint64(i)*0x9e3779b97f4a7c15 + 0x6a09e667f3bcc908
		y := (x ^ x>>29) * 0xbf58476d1ce4e5b9
		ps[i] = fmt.Sprintf("%016x%016x", x, y)
	}
	return ps
}

// inserter inserts rows through one ORM: row i has n = i and s = ps[i],
// batch rows per INSERT (1: one Create/Insert call per row), each INSERT in
// its own implicit transaction.
type inserter interface {
	insert(ctx context.Context, key string, ps []string, batch int) error
}
