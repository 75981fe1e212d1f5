package oncegorm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/once"
)

// unregUser and unregNote are models migrated without oncegorm.Register.
type unregUser struct {
	ID    at.UserID
	Email string
}

type unregNote struct {
	ID   once.ID
	Body string
}

// TestAutoMigrateWithoutRegister: a GORM that never had oncegorm.Register
// still creates ID primary keys that are not auto-increment (GORM reads the
// column type from the ID types' GormDataType), and an insert with an
// unfilled ID fails instead of storing 0 or letting the database pick a key.
func TestAutoMigrateWithoutRegister(t *testing.T) {
	at.Each(t, func(t *testing.T, db at.DB) {
		at.Leased(t)
		var d gorm.Dialector
		switch db.Dialect {
		case idfield.Postgres:
			d = postgres.New(postgres.Config{Conn: db.SQL})
		case idfield.MySQL:
			d = mysql.New(mysql.Config{Conn: db.SQL})
		case idfield.SQLite:
			d = &sqlite.Dialector{Conn: db.SQL}
		}
		prefix := testenv.Unique(t, "n") + "_"
		g, err := gorm.Open(d, &gorm.Config{NamingStrategy: schema.NamingStrategy{TablePrefix: prefix}, Logger: logger.Discard})
		if err != nil {
			t.Fatal(err)
		}
		models := []any{&unregUser{}, &unregNote{}}
		if err := g.AutoMigrate(models...); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := g.Migrator().DropTable(models...); err != nil {
				t.Errorf("drop: %v", err)
			}
		})
		for _, table := range []string{prefix + "unreg_users", prefix + "unreg_notes"} {
			c := at.Columns(t, db, table)["id"]
			if !c.PK || c.Extra != "" || !strings.Contains(c.Type, "int") {
				t.Errorf("%s.id = %+v; want a bigint primary key without default or auto-increment", table, c)
			}
			if db.Dialect == idfield.SQLite {
				// An INTEGER PRIMARY KEY is a rowid alias: NULL gets a rowid.
				var ddl string
				if err := db.SQL.QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&ddl); err != nil {
					t.Fatal(err)
				}
				if low := strings.ToLower(ddl); strings.Contains(low, "autoincrement") || c.Type == "integer" {
					t.Errorf("%s: %s; want no rowid alias", table, ddl)
				}
			}
		}
		// Without the plugin nothing fills the key: the insert fails.
		err = g.Create(&unregUser{Email: "a@example.com"}).Error
		if !errors.Is(err, once.ErrInvalid) {
			t.Errorf("Create with a zero ID: %v; want once.ErrInvalid", err)
		}
		id, err := once.NewAs[at.UserID]()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Create(&unregUser{ID: id, Email: "b@example.com"}).Error; err != nil {
			t.Fatal(err)
		}
		var got unregUser
		if err := g.First(&got, "email = ?", "b@example.com").Error; err != nil || got.ID != id {
			t.Errorf("read back %v, %v; want %v", got.ID, err, id)
		}
		var n int64
		if err := g.Model(&unregUser{}).Count(&n).Error; err != nil || n != 1 {
			t.Errorf("%d rows, %v; want 1", n, err)
		}
	})
}
