package main

import (
	"context"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestOpenDBMySQLForms: openDB takes the MySQL forms the README names, the
// go-sql-driver DSN with and without mysql:// (sql.Open connects lazily,
// so no server is needed).
func TestOpenDBMySQLForms(t *testing.T) {
	for _, url := range []string{
		"mysql://root@tcp(127.0.0.1:3306)/test",
		"root@tcp(127.0.0.1:3306)/test",
		"app:secret@unix(/run/mysqld/mysqld.sock)/app",
	} {
		db, pool, err := openDB(context.Background(), url)
		if err != nil {
			t.Errorf("openDB(%q): %v", url, err)
			continue
		}
		if _, ok := db.Driver().(*mysql.MySQLDriver); !ok || pool != nil {
			t.Errorf("openDB(%q): driver %T, pool %v; want go-sql-driver/mysql, no pool", url, db.Driver(), pool)
		}
		db.Close()
	}
}
