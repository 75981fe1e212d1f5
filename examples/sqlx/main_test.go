package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/once-go/once/internal/testenv"
)

func TestExample(t *testing.T) {
	for name, url := range map[string]func(*testing.T) string{
		"postgres": func(t *testing.T) string { testenv.Postgres(t); return testenv.PostgresDSN() },
		"mariadb":  func(t *testing.T) string { testenv.MySQL(t); return "mysql://" + testenv.MySQLDSN() },
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), &out, url(t)); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if s := out.String(); strings.Count(s, " usr_") != 3 {
				t.Errorf("unexpected output:\n%s", s)
			}
		})
	}
}
