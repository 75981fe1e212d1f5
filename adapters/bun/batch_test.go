package oncebun_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
)

type batchRow struct {
	bun.BaseModel `bun:"table:batch_rows"`
	ID            at.UserID `bun:",pk"`
	N             int64
}

func (r *batchRow) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, r)
}

// TestBatchHookCost: bun calls a slice model's hook once per element; the
// first call fills the whole batch and every later call returns at once,
// allocating nothing, so a batch costs the adapter O(rows), not O(rows²).
func TestBatchHookCost(t *testing.T) {
	at.Leased(t)
	sqldb, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	db := bun.NewDB(sqldb, sqlitedialect.New())
	if err := oncebun.Register(db, (*batchRow)(nil)); err != nil {
		t.Fatal(err)
	}
	rows := make([]batchRow, 1000)
	q := db.NewInsert().Model(&rows)
	ctx := context.Background()
	if err := oncebun.BeforeAppendModel(ctx, q, &rows[0]); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if rows[i].ID.IsZero() {
			t.Fatalf("row %d not filled by the first element's call", i)
		}
	}
	for _, i := range []int{1, 500, 999} {
		allocs := testing.AllocsPerRun(100, func() {
			if err := oncebun.BeforeAppendModel(ctx, q, &rows[i]); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("call for element %d of %d: %v allocations, want 0", i, len(rows), allocs)
		}
	}
}
