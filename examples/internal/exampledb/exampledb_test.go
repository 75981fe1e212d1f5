package exampledb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/once-go/once/migrations"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		url, driver, dsn string
		d                migrations.Dialect
	}{
		{"", "sqlite", "file:" + filepath.Join(os.TempDir(), "x.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", migrations.SQLite},
		{"sqlite:/tmp/a.db", "sqlite", "file:/tmp/a.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", migrations.SQLite},
		{"sqlite:///tmp/a.db", "sqlite", "file:/tmp/a.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", migrations.SQLite},
		{"postgres://u:p@h:5432/db?sslmode=disable", "pgx", "postgres://u:p@h:5432/db?sslmode=disable", migrations.Postgres},
		{"mysql://root@tcp(127.0.0.1:3306)/test", "mysql", "root@tcp(127.0.0.1:3306)/test?parseTime=true", migrations.MySQL},
		{"mysql://u:p@db.example:3307/app?timeout=5s", "mysql", "u:p@tcp(db.example:3307)/app?parseTime=true&timeout=5s", migrations.MySQL},
		{"mysql://u@db.example/app", "mysql", "u@tcp(db.example:3306)/app?parseTime=true", migrations.MySQL},
	} {
		driver, dsn, d, _, err := parse(c.url, "x.db")
		if assert.NoError(t, err, "%q", c.url) {
			assert.Equal(t, c.driver, driver, "%q: driver", c.url)
			assert.Equal(t, c.dsn, dsn, "%q: dsn", c.url)
			assert.Equal(t, c.d, d, "%q: dialect", c.url)
		}
	}
	for _, bad := range []string{"redis://x", "sqlite:", "mysql://u@tcp(/x"} {
		_, _, _, _, err := parse(bad, "x.db")
		assert.Error(t, err, "%q: no error", bad)
	}
}
