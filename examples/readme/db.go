package main

// readme:begin open
import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/glebarez/go-sqlite"  // database/sql driver "sqlite" (pure Go)
	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// openDB opens DATABASE_URL: postgres://... (pgx), mysql://user:pass@tcp(host:3306)/db
// or the same go-sql-driver DSN without mysql://, sqlite:/path/app.db, or
// nothing for a SQLite file in the temp directory. On
// PostgreSQL the app and the lease manager share one pgxpool.Pool: pool for
// pgx-native queries, db (the same connections) for database/sql, the ORMs and
// the lease strategy. pool is nil on the other databases.
func openDB(ctx context.Context, url string) (*sql.DB, *pgxpool.Pool, error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		return stdlib.OpenDBFromPool(pool), pool, nil
	case strings.HasPrefix(url, "mysql://"), strings.Contains(url, "@tcp("), strings.Contains(url, "@unix("):
		db, err := sql.Open("mysql", strings.TrimPrefix(url, "mysql://"))
		return db, nil, err
	case url == "", strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			path = filepath.Join(os.TempDir(), "once-readme.db")
		}
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		return db, nil, err
	}
	return nil, nil, errors.New("DATABASE_URL: want postgres://..., mysql://..., user@tcp(host:3306)/db or sqlite:PATH")
}

// readme:end open
