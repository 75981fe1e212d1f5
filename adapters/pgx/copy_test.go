package oncepgx_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncepgx "github.com/once-go/once/adapters/pgx"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userSpec]

// conn connects to PostgreSQL with a table of the test's own: a key, a
// nullable ID and a text column.
func conn(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	testenv.Postgres(t) // skips, or fails with ONCE_TEST_REQUIRE=1, when PostgreSQL is down
	ctx := context.Background()
	c, err := pgx.Connect(ctx, testenv.PostgresDSN())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(context.Background()) })
	table := testenv.Unique(t, "copy")
	_, err = c.Exec(ctx, `CREATE TABLE `+table+` (id bigint PRIMARY KEY, editor_id bigint, name text NOT NULL)`)
	require.NoError(t, err)
	t.Cleanup(func() { c.Exec(context.Background(), "DROP TABLE "+table) })
	return c, table
}

func count(t *testing.T, c *pgx.Conn, table string) int {
	t.Helper()
	var n int
	require.NoError(t, c.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n))
	return n
}

// TestCopyFromZeroID: a zero ID in the second row fails, through pgx's own
// CopyFrom, with the server's 57014 that no longer matches once.ErrInvalid;
// through oncepgx.CopyFrom with an error that does and names the row and
// column. Neither writes a row.
func TestCopyFromZeroID(t *testing.T) {
	c, table := conn(t)
	ctx := context.Background()
	cols := []string{"id", "editor_id", "name"}
	rows := [][]any{{UserID(once.FromUint64(1)), nil, "a"}, {UserID{}, nil, "b"}, {UserID(once.FromUint64(3)), nil, "c"}}

	_, err := c.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	var pgErr *pgconn.PgError
	if assert.ErrorAs(t, err, &pgErr, "pgx's CopyFrom: want the server's error") {
		assert.Equal(t, "57014", pgErr.Code, "pgx's CopyFrom: the server's error code")
	}
	assert.NotErrorIs(t, err, once.ErrInvalid, "pgx's CopyFrom")

	n, err := oncepgx.CopyFrom(ctx, c, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	if assert.ErrorIs(t, err, once.ErrInvalid, "oncepgx.CopyFrom") {
		assert.True(t, strings.HasPrefix(err.Error(), "oncepgx: row 2, column id: once: the zero ID"), "oncepgx.CopyFrom: %q, want it to name row 2, column id", err)
	}
	assert.Zero(t, n, "oncepgx.CopyFrom: rows")
	assert.Zero(t, count(t, c, table), "rows written by the failed COPYs")

	// A pointer to the zero ID (what encoding/json makes of "") is as
	// invalid; a nil pointer is NULL.
	zero := UserID{}
	rows = [][]any{{UserID(once.FromUint64(1)), (*UserID)(nil), "a"}, {UserID(once.FromUint64(2)), &zero, "b"}}
	if _, err := oncepgx.CopyFrom(ctx, c, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); assert.ErrorIs(t, err, once.ErrInvalid, "pointer to the zero ID") {
		assert.Contains(t, err.Error(), "row 2, column editor_id", "pointer to the zero ID")
	}
	assert.Zero(t, count(t, c, table), "rows written by the failed COPY")
}

// TestCopyFrom: valid rows, NULLs among them, are all written and read back.
func TestCopyFrom(t *testing.T) {
	c, table := conn(t)
	ctx := context.Background()
	editor := UserID(once.FromUint64(99))
	var rows [][]any
	for i := range 1000 {
		var e *UserID
		if i%2 == 0 {
			e = &editor
		}
		rows = append(rows, []any{UserID(once.FromUint64(uint64(i + 1))), e, "n"})
	}
	n, err := oncepgx.CopyFrom(ctx, c, pgx.Identifier{table}, []string{"id", "editor_id", "name"}, pgx.CopyFromRows(rows))
	require.NoError(t, err, "CopyFrom")
	require.Equal(t, int64(1000), n, "CopyFrom: rows")
	var sum, editors int64
	if assert.NoError(t, c.QueryRow(ctx, "SELECT sum(id), count(editor_id) FROM "+table).Scan(&sum, &editors), "sum(id), count(editor_id)") {
		assert.Equal(t, int64(500500), sum, "sum(id)")
		assert.Equal(t, int64(500), editors, "count(editor_id)")
	}
}

// failing is a source whose own error must come back as it is.
type failing struct{ n int }

var errSource = errors.New("the source broke")

func (f *failing) Next() bool { f.n++; return f.n <= 2 }
func (f *failing) Values() ([]any, error) {
	if f.n == 2 {
		return nil, errSource
	}
	return []any{UserID(once.FromUint64(uint64(f.n))), nil, "x"}, nil
}
func (f *failing) Err() error { return nil }

func TestCopyFromSourceError(t *testing.T) {
	c, table := conn(t)
	_, err := oncepgx.CopyFrom(context.Background(), c, pgx.Identifier{table}, []string{"id", "editor_id", "name"}, &failing{})
	assert.ErrorIs(t, err, errSource, "CopyFrom: want the source's error")
	assert.Zero(t, count(t, c, table), "rows written by the failed COPY")
}
