package oncepgx_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	oncepgx "github.com/once-go/once/adapters/pgx"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/once"
)

type userKind struct{}

func (userKind) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userKind]

// conn connects to PostgreSQL with a table of the test's own: a key, a
// nullable ID and a text column.
func conn(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	testenv.Postgres(t) // skips, or fails with ONCE_TEST_REQUIRE=1, when PostgreSQL is down
	ctx := context.Background()
	c, err := pgx.Connect(ctx, testenv.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	table := testenv.Unique(t, "copy")
	if _, err := c.Exec(ctx, `CREATE TABLE `+table+` (id bigint PRIMARY KEY, editor_id bigint, name text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Exec(context.Background(), "DROP TABLE "+table) })
	return c, table
}

func count(t *testing.T, c *pgx.Conn, table string) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
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
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" || errors.Is(err, once.ErrInvalid) {
		t.Errorf("pgx's CopyFrom: %v; want the server's 57014, not once.ErrInvalid", err)
	}

	n, err := oncepgx.CopyFrom(ctx, c, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	if !errors.Is(err, once.ErrInvalid) || !strings.HasPrefix(err.Error(), "oncepgx: row 2, column id: once: the zero ID") || n != 0 {
		t.Errorf("oncepgx.CopyFrom: %d, %v; want once.ErrInvalid naming row 2, column id", n, err)
	}
	if got := count(t, c, table); got != 0 {
		t.Errorf("%d rows written by the failed COPYs", got)
	}

	// A pointer to the zero ID (what encoding/json makes of "") is as
	// invalid; a nil pointer is NULL.
	zero := UserID{}
	rows = [][]any{{UserID(once.FromUint64(1)), (*UserID)(nil), "a"}, {UserID(once.FromUint64(2)), &zero, "b"}}
	if _, err := oncepgx.CopyFrom(ctx, c, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); !errors.Is(err, once.ErrInvalid) ||
		!strings.Contains(err.Error(), "row 2, column editor_id") {
		t.Errorf("pointer to the zero ID: %v", err)
	}
	if got := count(t, c, table); got != 0 {
		t.Errorf("%d rows written by the failed COPY", got)
	}
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
	if err != nil || n != 1000 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	var sum, editors int64
	if err := c.QueryRow(ctx, "SELECT sum(id), count(editor_id) FROM "+table).Scan(&sum, &editors); err != nil || sum != 500500 || editors != 500 {
		t.Errorf("sum(id) %d, editors %d (%v); want 500500, 500", sum, editors, err)
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
	if !errors.Is(err, errSource) {
		t.Errorf("CopyFrom: %v, want the source's error", err)
	}
	if got := count(t, c, table); got != 0 {
		t.Errorf("%d rows written by the failed COPY", got)
	}
}
