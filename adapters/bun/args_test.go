package oncebun_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	oncebun "github.com/once-go/once/adapters/bun"
	"github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/internal/testenv"
)

// TestNilArguments: nil databases, queries and models are configuration
// errors that name the argument, never panics.
func TestNilArguments(t *testing.T) {
	b := bun.NewDB(testenv.SQLite(t), sqlitedialect.New())
	var u User
	ctx := context.Background()
	for _, c := range []struct {
		what, arg string
		f         func() error
	}{
		{"Register(nil)", "db", func() error { return oncebun.Register(nil, (*User)(nil)) }},
		{"Register(db, nil)", "model", func() error { return oncebun.Register(b, nil) }},
		{"Fill(nil, &u)", "db", func() error { return oncebun.Fill(ctx, nil, &u) }},
		{"Fill((*bun.DB)(nil), &u)", "db", func() error { return oncebun.Fill(ctx, (*bun.DB)(nil), &u) }},
		{"Fill(db, nil)", "model", func() error { return oncebun.Fill(ctx, b, nil) }},
		{"BeforeAppendModel(nil insert)", "query", func() error {
			return oncebun.BeforeAppendModel(context.Background(), (*bun.InsertQuery)(nil), &u)
		}},
	} {
		err := adaptertest.NoPanic(t, c.what, c.f)
		if assert.ErrorIs(t, err, oncebun.ErrConfig, c.what) {
			assert.True(t, strings.HasPrefix(err.Error(), "oncebun: "), "%s: %q lacks the package prefix", c.what, err)
			assert.Contains(t, err.Error(), c.arg, "%s: the error names the argument", c.what)
		}
	}
}
