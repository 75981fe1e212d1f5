package oncegorm_test

import (
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.NoError(t, err)
		models := []any{&unregUser{}, &unregNote{}}
		require.NoError(t, g.AutoMigrate(models...))
		t.Cleanup(func() {
			assert.NoError(t, g.Migrator().DropTable(models...), "drop")
		})
		for _, table := range []string{prefix + "unreg_users", prefix + "unreg_notes"} {
			c := at.Columns(t, db, table)["id"]
			assert.True(t, c.PK, "%s.id = %+v; want a primary key", table, c)
			assert.Empty(t, c.Extra, "%s.id; want no default or auto-increment", table)
			assert.Contains(t, c.Type, "int", "%s.id; want a bigint", table)
			if db.Dialect == idfield.SQLite {
				// An INTEGER PRIMARY KEY is a rowid alias: NULL gets a rowid.
				var ddl string
				require.NoError(t, db.SQL.QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&ddl))
				assert.NotContains(t, strings.ToLower(ddl), "autoincrement", "%s: want no rowid alias", table)
				assert.NotEqual(t, "integer", c.Type, "%s: %s; want no rowid alias", table, ddl)
			}
		}
		// Without the plugin nothing fills the key: the insert fails.
		err = g.Create(&unregUser{Email: "a@example.com"}).Error
		assert.ErrorIs(t, err, once.ErrInvalid, "Create with a zero ID")
		id, err := once.NewAs[at.UserID]()
		require.NoError(t, err)
		require.NoError(t, g.Create(&unregUser{ID: id, Email: "b@example.com"}).Error)
		var got unregUser
		if assert.NoError(t, g.First(&got, "email = ?", "b@example.com").Error, "read back") {
			assert.Equal(t, id, got.ID, "read back")
		}
		var n int64
		if assert.NoError(t, g.Model(&unregUser{}).Count(&n).Error, "count") {
			assert.Equal(t, int64(1), n, "rows")
		}
	})
}
