package migrations_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/migrations"
)

func TestParseDialect(t *testing.T) {
	for in, want := range map[string]migrations.Dialect{
		"postgres": migrations.Postgres, "PostgreSQL": migrations.Postgres, "pgx": migrations.Postgres,
		"mysql": migrations.MySQL, "mariadb": migrations.MySQL,
		"sqlite": migrations.SQLite, " sqlite3 ": migrations.SQLite,
	} {
		got, err := migrations.ParseDialect(in)
		if assert.NoError(t, err, "ParseDialect(%q)", in) {
			assert.Equal(t, want, got, "ParseDialect(%q)", in)
		}
		again, _ := migrations.ParseDialect(got.String())
		assert.Equal(t, got, again, "ParseDialect(%v.String())", got)
	}
	for _, in := range []string{"", "oracle", "sql", strings.Repeat("x", 100)} {
		_, err := migrations.ParseDialect(in)
		if assert.ErrorIs(t, err, migrations.ErrConfig, "ParseDialect(%q) error", in) {
			assert.True(t, strings.HasPrefix(err.Error(), "migrations: "), "ParseDialect(%q) error %q lacks the package prefix", in, err)
		}
		assert.LessOrEqual(t, len(err.Error()), 120, "ParseDialect(%q) error too long: %q", in, err)
	}
	assert.Equal(t, "unknown", migrations.Dialect(0).String(), "Dialect(0).String()")
	assert.False(t, migrations.Dialect(0).Valid(), "Dialect(0).Valid()")
	assert.False(t, migrations.Dialect(4).Valid(), "Dialect(4).Valid()")
	assert.True(t, migrations.SQLite.Valid(), "SQLite.Valid()")
}

func TestValidateTable(t *testing.T) {
	for _, ok := range []string{"once_leases", "no_noncense_leases", "_x", "t1", "order", strings.Repeat("a", 63), "public.once_leases"} {
		assert.NoError(t, migrations.ValidateTable(ok), "ValidateTable(%q)", ok)
	}
	for _, bad := range []string{"", "1abc", "a-b", "Leases", "x;drop table y", "Public.once_leases", "a.b.c", ".a", "a.",
		`a"b`, "a`b", "a b", "naïve", strings.Repeat("a", 64)} {
		err := migrations.ValidateTable(bad)
		if assert.ErrorIs(t, err, migrations.ErrConfig, "ValidateTable(%q)", bad) {
			assert.True(t, strings.HasPrefix(err.Error(), "migrations: "), "ValidateTable(%q): %q lacks the package prefix", bad, err)
		}
		for _, d := range []migrations.Dialect{migrations.Postgres, migrations.MySQL, migrations.SQLite} {
			if _, err := migrations.Statements(d, bad, true); bad != "" {
				assert.ErrorIs(t, err, migrations.ErrConfig, "Statements(%v, %q) error", d, bad)
			}
		}
	}
}

func TestQuoteTable(t *testing.T) {
	q, _ := migrations.QuoteTable(migrations.Postgres, "order")
	assert.Equal(t, `"order"`, q, "postgres")
	q, _ = migrations.QuoteTable(migrations.MySQL, "order")
	assert.Equal(t, "`order`", q, "mysql")
	q, _ = migrations.QuoteTable(migrations.SQLite, "order")
	assert.Equal(t, `"order"`, q, "sqlite")
	_, err := migrations.QuoteTable(0, "order")
	assert.ErrorIs(t, err, migrations.ErrConfig, "unknown dialect")
	// schema.table: PostgreSQL only.
	q, err = migrations.QuoteTable(migrations.Postgres, "app.order")
	if assert.NoError(t, err, "postgres schema.table") {
		assert.Equal(t, `"app"."order"`, q, "postgres schema.table")
	}
	for _, d := range []migrations.Dialect{migrations.MySQL, migrations.SQLite} {
		_, err := migrations.QuoteTable(d, "app.order")
		if assert.ErrorIs(t, err, migrations.ErrConfig, "%v schema.table", d) {
			assert.Contains(t, err.Error(), "PostgreSQL only", "%v schema.table", d)
		}
		_, err = migrations.Statements(d, "app.order", true)
		assert.ErrorIs(t, err, migrations.ErrConfig, "Statements(%v, schema.table)", d)
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
		require.Equal(t, valid, err == nil, "ValidateTable(%q) valid=%v, QuoteTable(postgres) err=%v", name, valid, err)
		if !valid {
			return
		}
		require.Equal(t, name, strings.ReplaceAll(pg, `"`, ""), "QuoteTable(postgres, %q) = %s, unquoted", name, pg)
		require.Equal(t, 2*(1+strings.Count(name, ".")), strings.Count(pg, `"`), "QuoteTable(postgres, %q) = %s: quotes", name, pg)
		for _, d := range []migrations.Dialect{migrations.MySQL, migrations.SQLite} {
			q, err := migrations.QuoteTable(d, name)
			qualified := strings.Contains(name, ".")
			require.Equal(t, !qualified, err == nil, "QuoteTable(%v, %q) = %s, %v: accepted only without a schema", d, name, q, err)
			if err == nil {
				require.Equal(t, name, q[1:len(q)-1], "QuoteTable(%v, %q) = %s", d, name, q)
			}
		}
	})
}
