package main

import (
	"context"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
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
		if !assert.NoError(t, err, "openDB(%q)", url) {
			continue
		}
		assert.IsType(t, &mysql.MySQLDriver{}, db.Driver(), "openDB(%q): want go-sql-driver/mysql", url)
		assert.Nil(t, pool, "openDB(%q): want no pool", url)
		db.Close()
	}
}
