package oncesqlx_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/internal/testenv"
)

// TestNilArguments: nil databases, arguments and ID specs are configuration
// errors that name the argument, never panics.
func TestNilArguments(t *testing.T) {
	at.Leased(t)
	x := sqlx.NewDb(testenv.SQLite(t), "sqlite")
	ctx := context.Background()
	const insert = `INSERT INTO t (id) VALUES (:id)`
	for _, c := range []struct {
		what, arg string
		f         func() error
	}{
		{"Fill(nil)", "v", func() error { return oncesqlx.Fill(ctx, nil) }},
		{"Fill((*User)(nil))", "v", func() error { return oncesqlx.Fill(ctx, (*User)(nil)) }},
		{"NamedExec(ctx, nil, ...)", "db", func() error {
			_, err := oncesqlx.NamedExec(ctx, nil, insert, &User{})
			return err
		}},
		{"NamedExec(ctx, (*sqlx.DB)(nil), ...)", "db", func() error {
			_, err := oncesqlx.NamedExec(ctx, (*sqlx.DB)(nil), insert, &User{})
			return err
		}},
		{"NamedExec(ctx, db, q, nil)", "arg", func() error {
			_, err := oncesqlx.NamedExec(ctx, x, insert, nil)
			return err
		}},
		{"NamedExec(nil ctx)", "ctx", func() error {
			var nilCtx context.Context // the case under test
			_, err := oncesqlx.NamedExec(nilCtx, x, insert, &User{})
			return err
		}},
		{"ColumnType(nil, UserID{})", "db", func() error {
			_, err := oncesqlx.ColumnType(nil, at.UserID{})
			return err
		}},
		{"ColumnType(db, nil)", "id", func() error {
			_, err := oncesqlx.ColumnType(x, nil)
			return err
		}},
		{"ColumnType(unknown driver)", "driver", func() error {
			_, err := oncesqlx.ColumnType(sqlx.NewDb(x.DB, "oracle"), at.UserID{})
			return err
		}},
	} {
		err := at.NoPanic(t, c.what, c.f)
		if assert.ErrorIs(t, err, oncesqlx.ErrConfig, c.what) {
			assert.True(t, strings.HasPrefix(err.Error(), "oncesqlx: "), "%s: %q lacks the package prefix", c.what, err)
			assert.Contains(t, err.Error(), c.arg, "%s: the error names the argument", c.what)
		}
	}
	typ, err := oncesqlx.ColumnType(x, at.UserID{})
	require.NoError(t, err, "ColumnType(sqlite, UserID{})")
	assert.Equal(t, "integer", typ, "ColumnType(sqlite, UserID{})")
}
