package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"

	oncegorm "github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// TestUpsertSnippet runs the README's upsert region on each database:
// subscribing an email twice answers the same key, and a post whose
// editor_id is "" in JSON is a 400.
func TestUpsertSnippet(t *testing.T) {
	f, err := nonce.New(nonce.Config{BaseKey: []byte(testKey)})
	require.NoError(t, err)
	require.NoError(t, f.Activate(5, time.Time{}, time.Time{}))
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	ctx := context.Background()
	for _, c := range []struct {
		name string
		open func(testing.TB) *sql.DB
		dial func(*sql.DB) gorm.Dialector
	}{
		{"sqlite", testenv.SQLite, func(db *sql.DB) gorm.Dialector { return &sqlite.Dialector{Conn: db} }},
		{"postgres", testenv.Postgres, func(db *sql.DB) gorm.Dialector { return postgres.New(postgres.Config{Conn: db}) }},
		{"mariadb", testenv.MySQL, func(db *sql.DB) gorm.Dialector { return mysql.New(mysql.Config{Conn: db}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := c.open(t)
			prefix := testenv.Unique(t, "up") + "_"
			gdb, err := gorm.Open(c.dial(db), &gorm.Config{NamingStrategy: schema.NamingStrategy{TablePrefix: prefix}, Logger: logger.Discard})
			require.NoError(t, err)
			models := []any{&Subscriber{}, &User{}, &Post{}}
			require.NoError(t, oncegorm.Register(gdb, models...))
			require.NoError(t, gdb.AutoMigrate(models...))
			t.Cleanup(func() { gdb.Migrator().DropTable(models...) })

			first := Subscriber{Email: "ada@example.com", Name: "Ada"}
			require.NoError(t, subscribe(ctx, gdb, &first), "first subscribe")
			require.False(t, first.ID.IsZero(), "first subscribe: ID")
			again := Subscriber{Email: "ada@example.com", Name: "Ada Lovelace"}
			if assert.NoError(t, subscribe(ctx, gdb, &again), "second subscribe") {
				assert.Equal(t, first.ID, again.ID, "second subscribe: want the row's key")
			}
			var name string
			if assert.NoError(t, gdb.Model(&Subscriber{}).Where("id = ?", first.ID).Pluck("name", &name).Error, "name") {
				assert.Equal(t, "Ada Lovelace", name, "name")
			}

			author := User{Email: "ada@example.com"}
			require.NoError(t, gdb.Create(&author).Error)
			for body, want := range map[string]int{
				`{"author_id":"` + author.ID.String() + `","title":"a"}`:                  http.StatusOK,
				`{"author_id":"` + author.ID.String() + `","editor_id":null,"title":"b"}`: http.StatusOK,
				`{"author_id":"` + author.ID.String() + `","editor_id":"","title":"c"}`:   http.StatusBadRequest,
				`{"title":"d"}`: http.StatusBadRequest,
			} {
				var p Post
				require.NoError(t, json.Unmarshal([]byte(body), &p))
				err := gdb.Create(&p).Error
				assert.Equal(t, want, statusOf(err), "%s: status (error %v)", body, err)
				if want == http.StatusBadRequest && assert.Error(t, err, body) {
					assert.Contains(t, err.Error(), "oncegorm: Post.", body)
				}
			}
		})
	}
}
