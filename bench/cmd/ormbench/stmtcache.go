package main

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// stmtCache runs each distinct query text as one prepared statement, kept
// until reset: what GORM's PrepareStmt does, for ent (as the ExecQuerier of
// its driver) and for plain database/sql. Without it, go-sql-driver/mysql
// prepares, executes and closes a statement per call with arguments, and the
// server parses every multi-row INSERT anew; pgx's database/sql driver
// caches prepared statements by itself.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db, m: map[string]*sql.Stmt{}} }

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[query]; s != nil {
		return s, nil
	}
	s, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.m[query] = s
	return s, nil
}

// ExecContext runs query as its cached prepared statement.
func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// QueryContext runs query as its cached prepared statement.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// reset closes every cached statement (each configuration has a table of
// its own).
func (c *stmtCache) reset() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for q, s := range c.m {
		errs = append(errs, s.Close())
		delete(c.m, q)
	}
	return errors.Join(errs...)
}
