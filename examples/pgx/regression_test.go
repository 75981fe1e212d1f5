package main

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	oncepgx "github.com/once-go/once/adapters/pgx"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type textKind struct{}

func (textKind) Options() once.Options { return once.Options{Prefix: "t_", DBFormat: once.URL64} }

// TextID is stored as its url64 text.
type TextID = once.Typed[textKind]

// pool opens a pgx pool on the test database with a table of its own
// (id bigint key, a nullable bigint, a text ID) and a generator that holds
// a lease.
func pool(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	testenv.Postgres(t) // skips, or fails with ONCE_TEST_REQUIRE=1, when PostgreSQL is down
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testenv.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		c.TypeMap().RegisterDefaultPgType([]TextID(nil), "_varchar")
		return registerIDTypes(ctx, c)
	}
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	table := testenv.Unique(t, "pgx")
	if _, err := p.Exec(ctx, `CREATE TABLE `+table+` (id bigint PRIMARY KEY, editor_id bigint, ref varchar(11) NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Exec(context.Background(), "DROP TABLE "+table) })
	f, err := nonce.New(nonce.Config{MachineID: 3, BaseKey: []byte(demoKey), AwaitLease: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Activate(3, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
	return p, table
}

func newIDs[T once.IDType](t *testing.T, n int) []T {
	t.Helper()
	out := make([]T, n)
	for i := range out {
		id, err := once.NewAs[T]()
		if err != nil {
			t.Fatal(err)
		}
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
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	// SendBatch.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO `+table+` (id, editor_id, ref) VALUES ($1, $2, $3)`, ids[2], sql.Null[UserID]{V: ids[1], Valid: true}, refs[2])
	b.Queue(`SELECT editor_id FROM `+table+` WHERE id = $1`, ids[2])
	br := p.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		t.Fatalf("batch insert: %v", err)
	}
	var editor UserID
	if err := br.QueryRow().Scan(&editor); err != nil || editor != ids[1] {
		t.Errorf("batch select: %v, %v", editor, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}

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
				if err != nil || id != ids[1] || ptr == nil || *ptr != ids[0] || !null.Valid || null.V != ids[0] || ref != refs[1] {
					t.Errorf("format %d: %v %v %v %v, %v", format, id, ptr, null, ref, err)
				}
				err = p.QueryRow(ctx, `SELECT editor_id, editor_id FROM `+table+` WHERE id = $1`, mode, ids[0]).Scan(&ptr, &null)
				if err != nil || ptr != nil || null.Valid {
					t.Errorf("format %d, NULL: %v %v, %v", format, ptr, null, err)
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
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
					continue
				}
				got, err := pgx.CollectRows(rows, pgx.RowTo[UserID])
				if err != nil || len(got) != 2 || !slices.Contains(got, ids[0]) || !slices.Contains(got, ids[2]) {
					t.Errorf("%s: %v, %v", c.name, got, err)
				}
			}
			// The zero ID has no database value: refused before the
			// statement reaches the server, with once.ErrInvalid.
			for _, arg := range []any{UserID{}, &UserID{}, sql.Null[UserID]{Valid: true}} {
				_, err := p.Exec(ctx, `UPDATE `+table+` SET editor_id = $2 WHERE id = ANY($1)`, mode, []UserID{ids[1]}, arg)
				if !errors.Is(err, once.ErrInvalid) {
					t.Errorf("%T holding the zero ID: %v, want once.ErrInvalid", arg, err)
				}
			}
			for _, arg := range []any{[]UserID{ids[0], {}}} {
				_, err := p.Exec(ctx, `UPDATE `+table+` SET editor_id = NULL WHERE id = ANY($1)`, mode, arg)
				if !errors.Is(err, once.ErrInvalid) {
					t.Errorf("%T holding the zero ID: %v, want once.ErrInvalid", arg, err)
				}
			}
			var still int
			if err := p.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE editor_id IS NOT NULL`, mode).Scan(&still); err != nil || still != 2 {
				t.Errorf("rows with an editor: %d (%v), want 2", still, err)
			}
		})
	}
	// Without registerIDTypes, the exec modes that do not ask the server
	// for parameter types cannot encode a []UserID.
	c, err := pgx.Connect(ctx, testenv.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `SELECT 1 WHERE 1 = ANY($1)`, pgx.QueryExecModeExec, []UserID{ids[0]})
	if err == nil || !strings.Contains(err.Error(), "cannot find encode plan") {
		t.Errorf("[]UserID in exec mode without registerIDTypes: %v", err)
	}

	// A batch with a zero ID fails on that statement.
	b = &pgx.Batch{}
	b.Queue(`INSERT INTO `+table+` (id, ref) VALUES ($1, $2)`, UserID{}, refs[0])
	if err := p.SendBatch(ctx, b).Close(); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("batch with the zero ID: %v", err)
	}
	// CopyFrom streams rows to the server and hands an encoding error to
	// it as the reason to abort the COPY: the error that comes back is
	// the server's (SQLSTATE 57014), whose text carries the ID's message
	// but which no longer matches once.ErrInvalid. Nothing is written.
	// (oncepgx.CopyFrom, below, returns the ID's error.)
	_, err = p.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "ref"}, pgx.CopyFromRows([][]any{{newIDs[UserID](t, 1)[0], refs[0]}, {UserID{}, refs[0]}}))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" || !strings.Contains(err.Error(), `once: the zero ID ("no ID") has no database value`) {
		t.Errorf("CopyFrom with the zero ID: %v", err)
	}
	// oncepgx.CopyFrom returns the row's own error instead.
	_, err = oncepgx.CopyFrom(ctx, p, pgx.Identifier{table}, []string{"id", "ref"}, pgx.CopyFromRows([][]any{{newIDs[UserID](t, 1)[0], refs[0]}, {UserID{}, refs[0]}}))
	if !errors.Is(err, once.ErrInvalid) || !strings.Contains(err.Error(), "row 2, column id") {
		t.Errorf("oncepgx.CopyFrom with the zero ID: %v", err)
	}
	var count int
	if err := p.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&count); err != nil || count != 3 {
		t.Errorf("rows after the failed COPY: %d (%v), want 3", count, err)
	}
}
