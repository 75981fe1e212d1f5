package oncegorm_test

import (
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	oncegorm "github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/internal/testenv"
)

// TestNilArguments: nil databases and models are configuration errors that
// name the argument, never panics.
func TestNilArguments(t *testing.T) {
	g, err := gorm.Open(&sqlite.Dialector{Conn: testenv.SQLite(t)}, &gorm.Config{Logger: logger.Discard})
	require.NoError(t, err)
	for _, c := range []struct {
		what, arg string
		f         func() error
	}{
		{"Register(nil)", "db", func() error { return oncegorm.Register(nil) }},
		{"Prepare(nil)", "db", func() error { return oncegorm.Prepare(nil, &Note{}) }},
		{"Plugin.Initialize(nil)", "db", func() error { return oncegorm.Plugin{}.Initialize(nil) }},
		{"Register(db, nil)", "model", func() error { return oncegorm.Register(g, nil) }},
		{"Prepare(db, (*Note)(nil))", "", func() error { return oncegorm.Prepare(g, (*Note)(nil)) }},
	} {
		err := adaptertest.NoPanic(t, c.what, c.f)
		if c.arg == "" {
			assert.NoError(t, err, "%s: want nil (a typed nil pointer names its model)", c.what)
			continue
		}
		if assert.ErrorIs(t, err, oncegorm.ErrConfig, c.what) {
			assert.True(t, strings.HasPrefix(err.Error(), "oncegorm: "), "%s: %q lacks the package prefix", c.what, err)
			assert.Contains(t, err.Error(), c.arg, "%s: the error names the argument", c.what)
		}
	}
}
