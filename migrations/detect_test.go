package migrations_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			require.NoError(t, migrations.Apply(ctx, db, 0, table), "Apply without a dialect")
			wantFresh(t, summarize(t, ctx, db, d, table))

			wrong := migrations.SQLite
			if d == migrations.SQLite {
				wrong = migrations.Postgres
			}
			err := migrations.Apply(ctx, db, wrong, table+"_x")
			if assert.ErrorIs(t, err, migrations.ErrConfig, "Apply with dialect %v on a %v database", wrong, d) {
				assert.Contains(t, err.Error(), wrong.String(), "Apply with dialect %v on a %v database: the error names both", wrong, d)
				assert.Contains(t, err.Error(), d.String(), "Apply with dialect %v on a %v database: the error names both", wrong, d)
			}
			assert.False(t, tableExists(ctx, db, d, table+"_x"), "table %s_x created with the wrong dialect", table)
			require.NoError(t, migrations.Down(ctx, db, 0, table), "Down without a dialect")
			assert.False(t, tableExists(ctx, db, d, table), "table %s still exists after Down", table)
		})
	}
}
