package main

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncepgx "github.com/once-go/once/adapters/pgx"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type textSpec struct{}

func (textSpec) Options() once.Options { return once.Options{Prefix: "t_", DBFormat: once.URL64} }

// TextID is stored as its url64 text.
type TextID = once.Typed[textSpec]

// pool opens a pgx pool on the test database with a table of its own
// (id bigint key, a nullable bigint, a text ID) and a generator that holds
// a lease.
func pool(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	testenv.Postgres(t) // skips, or fails with ONCE_TEST_REQUIRE=1, when PostgreSQL is down
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testenv.PostgresDSN())
	require.NoError(t, err)
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		c.TypeMap().RegisterDefaultPgType([]TextID(nil), "_varchar")
		return registerIDTypes(ctx, c)
	}
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	table := testenv.Unique(t, "pgx")
	_, err = p.Exec(ctx, `CREATE TABLE `+table+` (id bigint PRIMARY KEY, editor_id bigint, ref varchar(11) NOT NULL)`)
	require.NoError(t, err)
	t.Cleanup(func() { p.Exec(context.Background(), "DROP TABLE "+table) })
	f, err := nonce.New(nonce.Config{BaseKey: []byte(demoKey), AllowDemoKey: true})
	require.NoError(t, err)
	require.NoError(t, f.Activate(3, time.Time{}, time.Time{}))
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	return p, table
}

func newIDs[T once.IDType](t *testing.T, n int) []T {
	t.Helper()
	out := make([]T, n)
	for i := range out {
		id, err := once.NewAs[T]()
		require.NoError(t, err)
		out[i] = id
	}
	return out
}

// TestPgxNative pins what pgx's native interface does with once IDs: scans
// from int8 in the binary and the text formats (pgx #2326 is a custom type
// that failed to scan bigint), NULL into *T and sql.Null[T], CopyFrom,
// SendBatch, and = ANY($1) with a []UserID and a []TextID, in each query
// exec mode.
func TestPgxNative(t *testing.T) {
	p, table := pool(t)
	ctx := context.Background()
	ids := newIDs[UserID](t, 3)
	refs := newIDs[TextID](t, 3)

	// CopyFrom: pgx's binary COPY encodes each ID through its Valuer.
	n, err := p.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "editor_id", "ref"}, pgx.CopyFromRows([][]any{
		{ids[0], nil, refs[0]},
		{ids[1], &ids[0], refs[1]},
	}))
	require.NoError(t, err, "CopyFrom")
	require.Equal(t, int64(2), n, "CopyFrom: rows")
	// SendBatch.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO `+table+` (id, editor_id, ref) VALUES ($1, $2, $3)`, ids[2], sql.Null[UserID]{V: ids[1], Valid: true}, refs[2])
	b.Queue(`SELECT editor_id FROM `+table+` WHERE id = $1`, ids[2])
	br := p.SendBatch(ctx, b)
	_, err = br.Exec()
	require.NoError(t, err, "batch insert")
	var editor UserID
	if assert.NoError(t, br.QueryRow().Scan(&editor), "batch select") {
		assert.Equal(t, ids[1], editor, "batch select")
	}
	require.NoError(t, br.Close())

	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			// Scan from int8, binary (the default for int8) and text.
			for _, format := range []int16{pgx.BinaryFormatCode, pgx.TextFormatCode} {
				args := []any{mode, ids[1]}
				if mode != pgx.QueryExecModeSimpleProtocol {
					args = append([]any{pgx.QueryResultFormats{format, format, format, format}}, args...)
				}
				var id UserID
				var ptr *UserID
				var null sql.Null[UserID]
				var ref TextID
				err := p.QueryRow(ctx, `SELECT id, editor_id, editor_id, ref FROM `+table+` WHERE id = $1`, args...).
					Scan(&id, &ptr, &null, &ref)
				if assert.NoError(t, err, "format %d", format) {
					assert.Equal(t, ids[1], id, "format %d: id", format)
					if assert.NotNil(t, ptr, "format %d: *UserID", format) {
						assert.Equal(t, ids[0], *ptr, "format %d: *UserID", format)
					}
					assert.Equal(t, sql.Null[UserID]{V: ids[0], Valid: true}, null, "format %d: sql.Null[UserID]", format)
					assert.Equal(t, refs[1], ref, "format %d: ref", format)
				}
				err = p.QueryRow(ctx, `SELECT editor_id, editor_id FROM `+table+` WHERE id = $1`, mode, ids[0]).Scan(&ptr, &null)
				if assert.NoError(t, err, "format %d, NULL", format) {
					assert.Nil(t, ptr, "format %d, NULL: *UserID", format)
					assert.False(t, null.Valid, "format %d, NULL: sql.Null[UserID] %v", format, null)
				}
			}
			// = ANY($1) with slices of IDs.
			for _, c := range []struct {
				name, where string
				arg         any
			}{
				{"[]UserID", "id = ANY($1)", []UserID{ids[0], ids[2]}},
				{"[]TextID", "ref = ANY($1)", []TextID{refs[0], refs[2]}},
			} {
				rows, err := p.Query(ctx, `SELECT id FROM `+table+` WHERE `+c.where+` ORDER BY id`, mode, c.arg)
				if !assert.NoError(t, err, c.name) {
					continue
				}
				got, err := pgx.CollectRows(rows, pgx.RowTo[UserID])
				if assert.NoError(t, err, c.name) {
					assert.ElementsMatch(t, []UserID{ids[0], ids[2]}, got, c.name)
				}
			}
			// The zero ID has no database value: refused before the
			// statement reaches the server, with once.ErrInvalid.
			for _, arg := range []any{UserID{}, &UserID{}, sql.Null[UserID]{Valid: true}} {
				_, err := p.Exec(ctx, `UPDATE `+table+` SET editor_id = $2 WHERE id = ANY($1)`, mode, []UserID{ids[1]}, arg)
				assert.ErrorIs(t, err, once.ErrInvalid, "%T holding the zero ID", arg)
			}
			for _, arg := range []any{[]UserID{ids[0], {}}} {
				_, err := p.Exec(ctx, `UPDATE `+table+` SET editor_id = NULL WHERE id = ANY($1)`, mode, arg)
				assert.ErrorIs(t, err, once.ErrInvalid, "%T holding the zero ID", arg)
			}
			var still int
			if assert.NoError(t, p.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE editor_id IS NOT NULL`, mode).Scan(&still), "rows with an editor") {
				assert.Equal(t, 2, still, "rows with an editor")
			}
		})
	}
	// Without registerIDTypes, the exec modes that do not ask the server
	// for parameter types cannot encode a []UserID.
	c, err := pgx.Connect(ctx, testenv.PostgresDSN())
	require.NoError(t, err)
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `SELECT 1 WHERE 1 = ANY($1)`, pgx.QueryExecModeExec, []UserID{ids[0]})
	if assert.Error(t, err, "[]UserID in exec mode without registerIDTypes") {
		assert.Contains(t, err.Error(), "cannot find encode plan", "[]UserID in exec mode without registerIDTypes")
	}

	// A batch with a zero ID fails on that statement.
	b = &pgx.Batch{}
	b.Queue(`INSERT INTO `+table+` (id, ref) VALUES ($1, $2)`, UserID{}, refs[0])
	assert.ErrorIs(t, p.SendBatch(ctx, b).Close(), once.ErrInvalid, "batch with the zero ID")
	// CopyFrom streams rows to the server and hands an encoding error to
	// it as the reason to abort the COPY: the error that comes back is
	// the server's (SQLSTATE 57014), whose text carries the ID's message
	// but which no longer matches once.ErrInvalid. Nothing is written.
	// (oncepgx.CopyFrom, below, returns the ID's error.)
	_, err = p.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "ref"}, pgx.CopyFromRows([][]any{{newIDs[UserID](t, 1)[0], refs[0]}, {UserID{}, refs[0]}}))
	var pgErr *pgconn.PgError
	if assert.ErrorAs(t, err, &pgErr, "CopyFrom with the zero ID") {
		assert.Equal(t, "57014", pgErr.Code, "CopyFrom with the zero ID: the server's error code")
		assert.Contains(t, err.Error(), `once: the zero ID ("no ID") has no database value`, "CopyFrom with the zero ID")
	}
	// oncepgx.CopyFrom returns the row's own error instead.
	_, err = oncepgx.CopyFrom(ctx, p, pgx.Identifier{table}, []string{"id", "ref"}, pgx.CopyFromRows([][]any{{newIDs[UserID](t, 1)[0], refs[0]}, {UserID{}, refs[0]}}))
	if assert.ErrorIs(t, err, once.ErrInvalid, "oncepgx.CopyFrom with the zero ID") {
		assert.Contains(t, err.Error(), "row 2, column id", "oncepgx.CopyFrom with the zero ID")
	}
	var count int
	if assert.NoError(t, p.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&count), "rows after the failed COPY") {
		assert.Equal(t, 3, count, "rows after the failed COPY")
	}
}
