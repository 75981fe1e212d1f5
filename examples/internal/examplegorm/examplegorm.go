// Package examplegorm opens GORM on an exampledb.DB's pool, so that GORM and
// the lease strategy share one connection pool.
package examplegorm

import (
	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/migrations"
)

// Open returns GORM on db's pool, with GORM's own logging off.
func Open(db *exampledb.DB) (*gorm.DB, error) {
	var d gorm.Dialector
	switch db.Dialect {
	case migrations.Postgres:
		d = postgres.New(postgres.Config{Conn: db.SQL})
	case migrations.MySQL:
		d = mysql.New(mysql.Config{Conn: db.SQL})
	default:
		d = &sqlite.Dialector{Conn: db.SQL}
	}
	return gorm.Open(d, &gorm.Config{Logger: logger.Discard})
}
