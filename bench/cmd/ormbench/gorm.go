package main

import (
	"context"
	"database/sql"

	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	oncegorm "github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/bench/internal/ormkey"
	"github.com/once-go/once/once"
)

type gormOnce struct {
	ID once.ID // filled by the oncegorm plugin before the INSERT
	N  int64
	S  string
}

func (gormOnce) TableName() string { return tables["once"] }

type gormAuto struct {
	ID int64 // GORM's auto-increment primary key, read back after the INSERT
	N  int64
	S  string
}

func (gormAuto) TableName() string { return tables["auto"] }

type gormUUID struct {
	ID ormkey.UUID
	N  int64
	S  string
}

func (gormUUID) TableName() string { return tables["uuidv7"] }

// BeforeCreate gives a new row its UUIDv7, GORM's usual way of filling a
// key in Go.
func (r *gormUUID) BeforeCreate(*gorm.DB) error {
	if r.ID.IsZero() {
		r.ID = ormkey.NewV7()
	}
	return nil
}

type gormInserter struct{ db *gorm.DB }

// newGORM opens GORM on sqlDB with the oncegorm plugin. Each Create is one
// statement with no transaction around it (SkipDefaultTransaction, GORM's
// documented setting for insert speed), as bun and ent do it. With prepare,
// GORM keeps each statement prepared (PrepareStmt).
func newGORM(dbName string, sqlDB *sql.DB, prepare bool) (inserter, error) {
	d := gorm.Dialector(postgres.New(postgres.Config{Conn: sqlDB}))
	if dbName == "mysql" {
		d = mysql.New(mysql.Config{Conn: sqlDB})
	}
	db, err := gorm.Open(d, &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true, PrepareStmt: prepare})
	if err != nil {
		return nil, err
	}
	if err := oncegorm.Register(db, &gormOnce{}); err != nil {
		return nil, err
	}
	return gormInserter{db}, nil
}

func (g gormInserter) insert(ctx context.Context, key string, ps []string, batch int) error {
	db := g.db.WithContext(ctx)
	switch key {
	case "once":
		return gormCreate(db, ps, batch, func(i int) gormOnce { return gormOnce{N: int64(i), S: ps[i]} })
	case "auto":
		return gormCreate(db, ps, batch, func(i int) gormAuto { return gormAuto{N: int64(i), S: ps[i]} })
	default:
		return gormCreate(db, ps, batch, func(i int) gormUUID { return gormUUID{N: int64(i), S: ps[i]} })
	}
}

// gormCreate creates one struct per call when batch is 1, otherwise a new
// slice of batch structs per call.
func gormCreate[T any](db *gorm.DB, ps []string, batch int, row func(int) T) error {
	if batch == 1 {
		for i := range ps {
			r := row(i)
			if err := db.Create(&r).Error; err != nil {
				return err
			}
		}
		return nil
	}
	for lo := 0; lo < len(ps); lo += batch {
		rows := make([]T, 0, min(batch, len(ps)-lo))
		for i := lo; i < lo+cap(rows); i++ {
			rows = append(rows, row(i))
		}
		if err := db.Create(&rows).Error; err != nil {
			return err
		}
	}
	return nil
}
