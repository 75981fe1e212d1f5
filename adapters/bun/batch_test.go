package oncebun_test

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/schema"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/once"
)

type batchRow struct {
	bun.BaseModel `bun:"table:batch_rows"`
	ID            at.UserID `bun:",pk"`
	N             int64
}

func (r *batchRow) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, r)
}

// batchInsert returns a batch of 1,000 rows and bun's insert query of
// them, on an in-memory SQLite database with batchRow registered.
func batchInsert(tb testing.TB) ([]batchRow, *bun.InsertQuery) {
	tb.Helper()
	sqldb, err := sql.Open("sqlite", ":memory:")
	require.NoError(tb, err)
	tb.Cleanup(func() { sqldb.Close() })
	db := bun.NewDB(sqldb, sqlitedialect.New())
	require.NoError(tb, oncebun.Register(db, (*batchRow)(nil)))
	rows := make([]batchRow, 1000)
	return rows, db.NewInsert().Model(&rows)
}

// TestBatchHookCost: bun calls a slice model's hook once per element; the
// first call fills the whole batch and every later call returns at once,
// allocating nothing, so a batch costs the adapter O(rows), not O(rows²).
func TestBatchHookCost(t *testing.T) {
	at.Leased(t)
	rows, q := batchInsert(t)
	ctx := context.Background()
	require.NoError(t, oncebun.BeforeAppendModel(ctx, q, &rows[0]))
	for i := range rows {
		require.False(t, rows[i].ID.IsZero(), "row %d not filled by the first element's call", i)
	}
	for _, i := range []int{1, 500, 999} {
		allocs := testing.AllocsPerRun(100, func() {
			require.NoError(t, oncebun.BeforeAppendModel(ctx, q, &rows[i]))
		})
		assert.Zero(t, allocs, "call for element %d of %d: allocations", i, len(rows))
	}
}

type formatsRow struct {
	bun.BaseModel `bun:"table:formats_rows"`
	ID            at.UserID `bun:",pk"`
	U             at.UnsignedID
	R             at.RawID
	T             at.URL64ID
	P             *at.UserID
}

// TestFieldAppendAndZero: bun writes an integer ID into the SQL text, and
// asks whether it is zero, without boxing it (bun's own way calls Value
// and IsZero through interfaces: an allocation each); the text is what
// bun writes through Value, for every DB format and for the zero ID.
func TestFieldAppendAndZero(t *testing.T) {
	at.Leased(t)
	sqldb, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer sqldb.Close()
	db := bun.NewDB(sqldb, sqlitedialect.New())
	require.NoError(t, oncebun.Register(db, (*formatsRow)(nil)))
	plain := bun.NewDB(sqldb, sqlitedialect.New()) // not registered: bun's own appenders
	gen := schema.NewQueryGen(db.Dialect())
	big := once.FromUint64(1<<63 + 5)
	uid := at.UserID(once.FromUint64(123456789012))
	for _, row := range []formatsRow{
		{ID: uid, U: at.UnsignedID(once.FromUint64(77)), R: at.RawID(once.FromUint64(9)), T: at.URL64ID(once.FromUint64(10)), P: &uid},
		{ID: at.UserID(big), U: at.UnsignedID(big)},
		{}, // zero IDs: bun writes Value's error, as without the adapter
	} {
		v := reflect.ValueOf(&row).Elem()
		for _, f := range db.Table(v.Type()).Fields {
			want := string(plain.Table(v.Type()).FieldMap[f.Name].AppendValue(gen, nil, v))
			assert.Equal(t, want, string(f.AppendValue(gen, nil, v)), "%s = %s: appended, bun writes", f.Name, row.ID)
			assert.Equal(t, plain.Table(v.Type()).FieldMap[f.Name].HasZeroValue(v), f.HasZeroValue(v), "%s = %s: HasZeroValue, bun says", f.Name, row.ID)
		}
	}
	row := formatsRow{ID: uid}
	v := reflect.ValueOf(&row).Elem()
	f := db.Table(v.Type()).FieldMap["id"]
	buf := make([]byte, 0, 64)
	assert.Zero(t, testing.AllocsPerRun(100, func() { buf = f.AppendValue(gen, buf[:0], v) }), "appending a signed ID: allocations")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = f.HasZeroValue(v) }), "HasZeroValue of an ID: allocations")
}

// BenchmarkBatchHook is the adapter's cost per row of a batch insert of
// 1,000 rows: bun's hook call for every element, the first filling the
// batch (ns/op is per batch; ns/row per row). "fill" draws every key, and
// is held near 122 ns/row by the counter's budget of 8,192 IDs per
// millisecond; "set" has the keys already set: the adapter's own walk.
func BenchmarkBatchHook(b *testing.B) {
	at.Leased(b)
	rows, q := batchInsert(b)
	ctx := context.Background()
	for _, fill := range []bool{true, false} {
		name := map[bool]string{true: "fill", false: "set"}[fill]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if fill {
					for i := range rows {
						rows[i].ID = at.UserID{}
					}
				}
				for i := range rows {
					if err := oncebun.BeforeAppendModel(ctx, q, &rows[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
		})
	}
}
