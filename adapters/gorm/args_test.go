package oncegorm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
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
	if err != nil {
		t.Fatal(err)
	}
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
			if err != nil {
				t.Errorf("%s: %v, want nil (a typed nil pointer names its model)", c.what, err)
			}
			continue
		}
		if !errors.Is(err, oncegorm.ErrConfig) || !strings.HasPrefix(err.Error(), "oncegorm: ") || !strings.Contains(err.Error(), c.arg) {
			t.Errorf("%s: %v, want oncegorm.ErrConfig naming %s", c.what, err, c.arg)
		}
	}
}
