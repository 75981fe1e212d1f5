package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// TestApplyDetects: with no dialect Apply and Down find it from the driver;
// a dialect that contradicts the driver is ErrConfig naming both, before any
// SQL runs.
func TestApplyDetects(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			db, ctx := open(t, d), ctxT(t)
			table := testenv.Unique(t, "migd")
			t.Cleanup(func() { migrations.Down(context.Background(), db, d, table) })
			if err := migrations.Apply(ctx, db, 0, table); err != nil {
				t.Fatalf("Apply without a dialect: %v", err)
			}
			wantFresh(t, summarize(t, ctx, db, d, table))

			wrong := migrations.SQLite
			if d == migrations.SQLite {
				wrong = migrations.Postgres
			}
			err := migrations.Apply(ctx, db, wrong, table+"_x")
			if !errors.Is(err, migrations.ErrConfig) || !strings.Contains(err.Error(), wrong.String()) || !strings.Contains(err.Error(), d.String()) {
				t.Errorf("Apply with dialect %v on a %v database: %v, want ErrConfig naming both", wrong, d, err)
			}
			if tableExists(ctx, db, d, table+"_x") {
				t.Errorf("table %s_x created with the wrong dialect", table)
			}
			if err := migrations.Down(ctx, db, 0, table); err != nil {
				t.Fatalf("Down without a dialect: %v", err)
			}
			if tableExists(ctx, db, d, table) {
				t.Errorf("table %s still exists after Down", table)
			}
		})
	}
}
