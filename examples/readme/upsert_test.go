package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
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
	f, err := nonce.New(nonce.Config{MachineID: 5, BaseKey: []byte(testKey), AwaitLease: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Activate(5, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
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
			if err != nil {
				t.Fatal(err)
			}
			models := []any{&Subscriber{}, &User{}, &Post{}}
			if err := oncegorm.Register(gdb, models...); err != nil {
				t.Fatal(err)
			}
			if err := gdb.AutoMigrate(models...); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { gdb.Migrator().DropTable(models...) })

			first := Subscriber{Email: "ada@example.com", Name: "Ada"}
			if err := subscribe(ctx, gdb, &first); err != nil || first.ID.IsZero() {
				t.Fatalf("first subscribe: %v (%v)", first.ID, err)
			}
			again := Subscriber{Email: "ada@example.com", Name: "Ada Lovelace"}
			if err := subscribe(ctx, gdb, &again); err != nil || again.ID != first.ID {
				t.Errorf("second subscribe: %v (%v), want the row's key %v", again.ID, err, first.ID)
			}
			var name string
			if err := gdb.Model(&Subscriber{}).Where("id = ?", first.ID).Pluck("name", &name).Error; err != nil || name != "Ada Lovelace" {
				t.Errorf("name %q (%v)", name, err)
			}

			author := User{Email: "ada@example.com"}
			if err := gdb.Create(&author).Error; err != nil {
				t.Fatal(err)
			}
			for body, want := range map[string]int{
				`{"author_id":"` + author.ID.String() + `","title":"a"}`:                  http.StatusOK,
				`{"author_id":"` + author.ID.String() + `","editor_id":null,"title":"b"}`: http.StatusOK,
				`{"author_id":"` + author.ID.String() + `","editor_id":"","title":"c"}`:   http.StatusBadRequest,
				`{"title":"d"}`: http.StatusBadRequest,
			} {
				var p Post
				if err := json.Unmarshal([]byte(body), &p); err != nil {
					t.Fatal(err)
				}
				err := gdb.Create(&p).Error
				if got := statusOf(err); got != want || want == http.StatusBadRequest && !strings.Contains(err.Error(), "oncegorm: Post.") {
					t.Errorf("%s: %d (%v), want %d", body, got, err, want)
				}
			}
		})
	}
}
