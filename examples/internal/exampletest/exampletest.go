// Package exampletest runs the ORM examples as smoke tests on the test
// databases (PostgreSQL and MariaDB, see internal/testenv).
package exampletest

import (
	"bytes"
	"context"
	"testing"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/internal/testenv"
)

// Run runs body through exampledb.Run on each test database, failing the
// test when it returns an error or when ok rejects what it wrote.
func Run(t *testing.T, body exampledb.Body, ok func(out string) bool) {
	t.Helper()
	for name, url := range map[string]func(*testing.T) string{
		"postgres": func(t *testing.T) string { testenv.Postgres(t); return testenv.PostgresDSN() },
		"mariadb":  func(t *testing.T) string { testenv.MySQL(t); return "mysql://" + testenv.MySQLDSN() },
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := exampledb.Run(context.Background(), &out, url(t), body); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if s := out.String(); !ok(s) {
				t.Errorf("unexpected output:\n%s", s)
			}
		})
	}
}
