package oncesqlx_test

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/once"
)

// keyed has keys of three DB formats: bigint, raw bytes and url64 text.
type keyed struct {
	ID  at.UserID  `db:"id"`
	Raw at.RawID   `db:"raw" once:"auto"`
	U64 at.URL64ID `db:"u64" once:"auto"`
}

// TestIn: sqlx.In expands a slice of IDs of each DB format into one bind
// variable per ID, and leaves a single ID alone, even one whose database
// value is []byte (sqlx #717 and #468 are custom []byte types that In
// expanded byte by byte; an ID is a struct, and sqlx calls Value before
// deciding).
func TestIn(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		col := func(k once.Spec) string {
			typ, err := oncesqlx.ColumnType(e.x, k)
			require.NoError(t, err)
			return typ
		}
		_, err := e.x.Exec(`CREATE TABLE keyed (id ` + col(at.UserID{}) + ` PRIMARY KEY, raw ` + col(at.RawID{}) +
			` NOT NULL, u64 ` + col(at.URL64ID{}) + ` NOT NULL)`)
		require.NoError(t, err)
		rows := make([]keyed, 3)
		_, err = oncesqlx.NamedExec(ctx, e.x, `INSERT INTO keyed (id, raw, u64) VALUES (:id, :raw, :u64)`, rows)
		require.NoError(t, err)
		for _, c := range []struct {
			name  string
			query string
			args  []any
		}{
			{"[]UserID", `SELECT id, raw, u64 FROM keyed WHERE id IN (?) ORDER BY id`, []any{[]at.UserID{rows[0].ID, rows[2].ID}}},
			{"[]RawID", `SELECT id, raw, u64 FROM keyed WHERE raw IN (?) ORDER BY id`, []any{[]at.RawID{rows[0].Raw, rows[2].Raw}}},
			{"[]URL64ID", `SELECT id, raw, u64 FROM keyed WHERE u64 IN (?) ORDER BY id`, []any{[]at.URL64ID{rows[0].U64, rows[2].U64}}},
			{"RawID next to a []UserID", `SELECT id, raw, u64 FROM keyed WHERE raw <> ? AND id IN (?) ORDER BY id`,
				[]any{rows[1].Raw, []at.UserID{rows[0].ID, rows[1].ID, rows[2].ID}}},
		} {
			q, args, err := sqlx.In(c.query, c.args...)
			require.NoError(t, err, "%s", c.name)
			var got []keyed
			if !assert.NoError(t, e.x.SelectContext(ctx, &got, e.x.Rebind(q), args...), "%s (%s)", c.name, q) {
				continue
			}
			assert.ElementsMatch(t, []keyed{rows[0], rows[2]}, got, "%s: want rows 0 and 2", c.name)
		}
	})
}
