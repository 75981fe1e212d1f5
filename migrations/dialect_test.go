package migrations_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/migrations"
)

func TestParseDialect(t *testing.T) {
	for in, want := range map[string]migrations.Dialect{
		"postgres": migrations.Postgres, "PostgreSQL": migrations.Postgres, "pgx": migrations.Postgres,
		"mysql": migrations.MySQL, "mariadb": migrations.MySQL,
		"sqlite": migrations.SQLite, " sqlite3 ": migrations.SQLite,
	} {
		got, err := migrations.ParseDialect(in)
		if err != nil || got != want {
			t.Errorf("ParseDialect(%q) = %v, %v; want %v", in, got, err, want)
		}
		if again, _ := migrations.ParseDialect(got.String()); again != got {
			t.Errorf("ParseDialect(%v.String()) = %v", got, again)
		}
	}
	for _, in := range []string{"", "oracle", "sql", strings.Repeat("x", 100)} {
		_, err := migrations.ParseDialect(in)
		if !errors.Is(err, migrations.ErrConfig) || !strings.HasPrefix(err.Error(), "migrations: ") {
			t.Errorf("ParseDialect(%q) error = %v; want ErrConfig", in, err)
		}
		if len(err.Error()) > 120 {
			t.Errorf("ParseDialect(%q) error too long: %q", in, err)
		}
	}
	if s := migrations.Dialect(0).String(); s != "unknown" {
		t.Errorf("Dialect(0).String() = %q", s)
	}
	if migrations.Dialect(0).Valid() || migrations.Dialect(4).Valid() || !migrations.SQLite.Valid() {
		t.Error("Valid() wrong")
	}
}

func TestValidateTable(t *testing.T) {
	for _, ok := range []string{"once_leases", "no_noncense_leases", "_x", "t1", "order", strings.Repeat("a", 63), "public.once_leases"} {
		if err := migrations.ValidateTable(ok); err != nil {
			t.Errorf("ValidateTable(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1abc", "a-b", "Leases", "x;drop table y", "Public.once_leases", "a.b.c", ".a", "a.",
		`a"b`, "a`b", "a b", "naïve", strings.Repeat("a", 64)} {
		err := migrations.ValidateTable(bad)
		if !errors.Is(err, migrations.ErrConfig) || !strings.HasPrefix(err.Error(), "migrations: ") {
			t.Errorf("ValidateTable(%q) = %v; want ErrConfig", bad, err)
		}
		for _, d := range []migrations.Dialect{migrations.Postgres, migrations.MySQL, migrations.SQLite} {
			if _, err := migrations.Statements(d, bad, true); bad != "" && !errors.Is(err, migrations.ErrConfig) {
				t.Errorf("Statements(%v, %q) error = %v; want ErrConfig", d, bad, err)
			}
		}
	}
}

func TestQuoteTable(t *testing.T) {
	if q, _ := migrations.QuoteTable(migrations.Postgres, "order"); q != `"order"` {
		t.Errorf("postgres: %s", q)
	}
	if q, _ := migrations.QuoteTable(migrations.MySQL, "order"); q != "`order`" {
		t.Errorf("mysql: %s", q)
	}
	if q, _ := migrations.QuoteTable(migrations.SQLite, "order"); q != `"order"` {
		t.Errorf("sqlite: %s", q)
	}
	if _, err := migrations.QuoteTable(0, "order"); !errors.Is(err, migrations.ErrConfig) {
		t.Errorf("unknown dialect: %v", err)
	}
	// schema.table: PostgreSQL only.
	if q, err := migrations.QuoteTable(migrations.Postgres, "app.order"); q != `"app"."order"` || err != nil {
		t.Errorf("postgres schema.table: %s, %v", q, err)
	}
	for _, d := range []migrations.Dialect{migrations.MySQL, migrations.SQLite} {
		_, err := migrations.QuoteTable(d, "app.order")
		if !errors.Is(err, migrations.ErrConfig) || !strings.Contains(err.Error(), "PostgreSQL only") {
			t.Errorf("%v schema.table: %v; want ErrConfig saying PostgreSQL only", d, err)
		}
		if _, err := migrations.Statements(d, "app.order", true); !errors.Is(err, migrations.ErrConfig) {
			t.Errorf("Statements(%v, schema.table): %v; want ErrConfig", d, err)
		}
	}
}

// FuzzQuoteTable: a name ValidateTable accepts quotes, for PostgreSQL, to
// one or two quoted identifiers that give the name back, and for MySQL and
// SQLite only when it has no schema; no other input quotes.
func FuzzQuoteTable(f *testing.F) {
	for _, s := range []string{"once_leases", "app.once_leases", "a.b.c", `x".y`, "Order", "", ".", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		valid := migrations.ValidateTable(name) == nil
		pg, err := migrations.QuoteTable(migrations.Postgres, name)
		if (err == nil) != valid {
			t.Fatalf("ValidateTable(%q) valid=%v, QuoteTable(postgres) err=%v", name, valid, err)
		}
		if !valid {
			return
		}
		if back := strings.ReplaceAll(pg, `"`, ""); back != name || strings.Count(pg, `"`) != 2*(1+strings.Count(name, ".")) {
			t.Fatalf("QuoteTable(postgres, %q) = %s", name, pg)
		}
		for _, d := range []migrations.Dialect{migrations.MySQL, migrations.SQLite} {
			q, err := migrations.QuoteTable(d, name)
			if qualified := strings.Contains(name, "."); (err == nil) == qualified || err == nil && q[1:len(q)-1] != name {
				t.Fatalf("QuoteTable(%v, %q) = %s, %v", d, name, q, err)
			}
		}
	})
}
