package oncebun_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// Member has a natural key (the email) next to its once key: the table
// that upserts are for.
type Member struct {
	bun.BaseModel `bun:"table:members"`
	ID            at.UserID `bun:",pk"`
	Email         string    `bun:",unique,notnull"`
	Name          string
}

func (a *Member) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, a)
}

// checkUpsert checks that each member holds the key of the row with its
// email, or (written[i] false: a DO NOTHING that skipped it) the zero key
// or the key of the existing row.
func checkUpsert(t *testing.T, e *env, what string, as []Member, written []bool) {
	t.Helper()
	for i, a := range as {
		var want at.UserID
		e.b.NewSelect().Table("members").Column("id").Where("email = ?", a.Email).Scan(context.Background(), &want)
		switch {
		case a.ID == want:
		case a.ID.IsZero() && !written[i]:
		default:
			var email string
			e.b.NewSelect().Table("members").Column("email").Where("id = ?", a.ID).Scan(context.Background(), &email)
			assert.Equal(t, want, a.ID, "%s: row %d (%s) holds the key of the row %q; want the key of the row with its email", what, i, a.Email, email)
		}
	}
}

// upsert returns an insert of model that updates the name of the row with
// the same email, in db's dialect.
func upsert(e *env, model any) *bun.InsertQuery {
	q := e.b.NewInsert().Model(model)
	if e.db.Dialect == idfield.MySQL {
		return q.On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)")
	}
	return q.On("CONFLICT (email) DO UPDATE").Set("name = EXCLUDED.name")
}

// TestUpsert: after ON CONFLICT DO UPDATE (ON DUPLICATE KEY UPDATE) each
// struct holds the key of the row it was written to; after DO NOTHING
// (INSERT IGNORE) a struct whose row was not written holds the zero key or
// the existing row's, never a key no row has; single rows and batches.
func TestUpsert(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) { upsertCases(t, open(t, db)) })
}

func upsertCases(t *testing.T, e *env) {
	ctx := context.Background()
	seed := []Member{{Email: "ada@example.com", Name: "Ada"}, {Email: "grace@example.com", Name: "Grace"}}
	_, err := e.b.NewInsert().Model(&seed).Exec(ctx)
	require.NoError(t, err)

	one := Member{Email: "ada@example.com", Name: "Ada L."}
	_, err = upsert(e, &one).Exec(ctx)
	require.NoError(t, err)
	checkUpsert(t, e, "DO UPDATE, one row", []Member{one}, []bool{true})
	assert.Equal(t, seed[0].ID, one.ID, "DO UPDATE, one row: ID, want the existing row's")

	if !e.db.Oracle { // refused there: TestUpsertWithoutReturning
		batch := []Member{{Email: "edsger@example.com"}, {Email: "ada@example.com", Name: "Ada"}, {Email: "barbara@example.com"}}
		_, err := upsert(e, &batch).Exec(ctx)
		require.NoError(t, err)
		checkUpsert(t, e, "DO UPDATE, batch", batch, []bool{true, true, true})

		ptrs := []*Member{{Email: "grace@example.com", Name: "Grace H."}, {Email: "niklaus@example.com"}}
		_, err = upsert(e, &ptrs).Exec(ctx)
		require.NoError(t, err)
		checkUpsert(t, e, "DO UPDATE, batch of pointers", []Member{*ptrs[0], *ptrs[1]}, []bool{true, true})
	}

	skip := Member{Email: "grace@example.com", Name: "ignored"}
	_, err = e.b.NewInsert().Model(&skip).Ignore().Exec(ctx)
	require.NoError(t, err)
	checkUpsert(t, e, "Ignore, one row", []Member{skip}, []bool{false})

	skips := []Member{{Email: "alan@example.com"}, {Email: "ada@example.com"}, {Email: "donald@example.com"}}
	_, err = e.b.NewInsert().Model(&skips).Ignore().Exec(ctx)
	require.NoError(t, err)
	checkUpsert(t, e, "Ignore, batch", skips, []bool{true, false, true})
	assert.False(t, skips[0].ID.IsZero() || skips[2].ID.IsZero(), "Ignore, batch: written rows hold %v and %v", skips[0].ID, skips[2].ID)

	// A key the caller set: kept when it is the existing row's, dropped
	// when the row was not written and no row has it.
	mine := at.UserID(once.FromUint64(4242))
	preset := []Member{{ID: seed[1].ID, Email: "grace@example.com"}, {ID: mine, Email: "ada@example.com"}}
	_, err = e.b.NewInsert().Model(&preset).Ignore().Exec(keepPresets)
	require.NoError(t, err)
	checkUpsert(t, e, "Ignore, keys set by the caller", preset, []bool{false, false})
	assert.Equal(t, seed[1].ID, preset[0].ID, "the existing row's key")

	if e.db.Dialect != idfield.MySQL {
		nothing := []Member{{Email: "ken@example.com"}, {Email: "ada@example.com"}}
		_, err := e.b.NewInsert().Model(&nothing).On("CONFLICT (email) DO NOTHING").Exec(ctx)
		require.NoError(t, err)
		checkUpsert(t, e, "DO NOTHING, batch", nothing, []bool{true, false})
	}
}

// TestUpsertWithoutReturning runs upserts on Oracle MySQL, which has no
// RETURNING: LAST_INSERT_ID for one row with an integer key, a
// lookup by key for INSERT IGNORE, and a refusal (before any SQL) for
// what neither can read back.
func TestUpsertWithoutReturning(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		if !db.Oracle {
			t.Skip("Oracle MySQL only")
		}
		e := open(t, db)
		seed := []Member{{Email: "ada@example.com", Name: "Ada"}, {Email: "grace@example.com", Name: "Grace"}}
		_, err := e.b.NewInsert().Model(&seed).Exec(ctx)
		require.NoError(t, err)
		for _, c := range []struct {
			name string
			q    func(m *Member) *bun.InsertQuery
		}{
			{"explicit SET", func(m *Member) *bun.InsertQuery {
				return e.b.NewInsert().Model(m).On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)")
			}},
			{"bun's SET list", func(m *Member) *bun.InsertQuery { return e.b.NewInsert().Model(m).On("DUPLICATE KEY UPDATE") }},
			{"SET in the ON text", func(m *Member) *bun.InsertQuery {
				return e.b.NewInsert().Model(m).On("DUPLICATE KEY UPDATE name = VALUES(name)")
			}},
		} {
			m := Member{Email: "ada@example.com", Name: c.name}
			_, err := c.q(&m).Exec(ctx)
			require.NoError(t, err, "%s", c.name)
			checkUpsert(t, e, c.name, []Member{m}, []bool{true})
			var name string
			if assert.NoError(t, e.b.NewSelect().Table("members").Column("name").Where("id = ?", seed[0].ID).Scan(ctx, &name), "%s: name", c.name) {
				assert.Equal(t, c.name, name, "%s: name", c.name)
			}
			fresh := Member{Email: c.name + "@example.com"}
			_, err = c.q(&fresh).Exec(ctx)
			require.NoError(t, err, "%s, new row", c.name)
			require.False(t, fresh.ID.IsZero(), "%s, new row: ID", c.name)
			checkUpsert(t, e, c.name+", new row", []Member{fresh}, []bool{true})
		}

		ign := []Member{{Email: "ken@example.com"}, {Email: "ada@example.com"}, {ID: seed[1].ID, Email: "grace@example.com"}}
		_, err = e.b.NewInsert().Model(&ign).Ignore().Exec(keepPresets)
		require.NoError(t, err)
		checkUpsert(t, e, "INSERT IGNORE, batch", ign, []bool{true, false, false})
		assert.False(t, ign[0].ID.IsZero(), "INSERT IGNORE, batch: first row's key")
		assert.True(t, ign[1].ID.IsZero(), "INSERT IGNORE, batch: second row's key %v, want zero", ign[1].ID)
		assert.Equal(t, seed[1].ID, ign[2].ID, "INSERT IGNORE, batch: third row's key")

		e.log.take()
		batch := []Member{{Email: "ada@example.com"}, {Email: "x@example.com"}}
		_, err = e.b.NewInsert().Model(&batch).On("DUPLICATE KEY UPDATE").Exec(ctx)
		if assert.ErrorIs(t, err, oncebun.ErrUpsert, "batch") {
			assert.Contains(t, err.Error(), "insert of 2 Member with ON DUPLICATE KEY UPDATE", "batch: the error names the call")
		}
		assert.Empty(t, e.log.take(), "batch: ran SQL")
		assert.True(t, batch[0].ID.IsZero() && batch[1].ID.IsZero(), "batch: left %v", batch)
	})
}

// TestUpsertRefused: a batch upsert with a WHERE (its skipped and updated
// rows cannot be told apart) and an upsert on a bun.DB without the
// adapter's query hook fail before any SQL runs, and leave no key behind.
func TestUpsertRefused(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		if db.Dialect != idfield.MySQL {
			batch := []Member{{Email: "a@example.com"}, {Email: "b@example.com"}}
			_, err := e.b.NewInsert().Model(&batch).On("CONFLICT (email) DO UPDATE").Set("name = EXCLUDED.name").
				Where("?TableAlias.name = ?", "x").Exec(ctx)
			assert.ErrorIs(t, err, oncebun.ErrUpsert, "batch with WHERE")
			assert.True(t, batch[0].ID.IsZero(), "batch with WHERE: left %v", batch)
			// One row: inserted, then refused by the WHERE (not written).
			for i, want := range []bool{true, false} {
				one := Member{Email: "a@example.com"}
				_, err := e.b.NewInsert().Model(&one).On("CONFLICT (email) DO UPDATE").Set("name = EXCLUDED.name").
					Where("?TableAlias.name = ?", "x").Exec(ctx)
				if assert.NoError(t, err, "one row with WHERE, try %d", i) {
					assert.Equal(t, !want, one.ID.IsZero(), "one row with WHERE, try %d: %v, zero key", i, one)
				}
				checkUpsert(t, e, "one row with WHERE", []Member{one}, []bool{want})
			}
		}
		// A bun.DB on the same dialect (the tables registered) that
		// Register never saw runs no hook of the adapter's.
		bare := bun.NewDB(e.b.DB, e.b.Dialect())
		m := Member{Email: "c@example.com"}
		_, err := bare.NewInsert().Model(&m).Ignore().Exec(ctx)
		if assert.ErrorIs(t, err, oncebun.ErrConfig, "without the hook") {
			assert.Contains(t, err.Error(), "oncebun.Register", "without the hook: the error names oncebun.Register")
		}
		assert.True(t, m.ID.IsZero(), "without the hook: %v", m)
	})
}

// TestUpsertConcurrent: goroutines upsert the same emails at once, one row
// and two rows per statement; every struct ends up holding the key of the
// row with its email (the adapter's state per query is not shared).
func TestUpsertConcurrent(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		emails := []string{"a@example.com", "b@example.com", "c@example.com"}
		var mu sync.Mutex
		var done [][]Member
		var wg sync.WaitGroup
		for g := range 12 {
			wg.Go(func() {
				for i := range 4 {
					ms := []Member{{Email: emails[(g+i)%3], Name: "x"}}
					if i%2 == 1 && !e.db.Oracle { // two rows, in a fixed order (refused on MySQL)
						ms = []Member{{Email: emails[0]}, {Email: emails[2]}}
					}
					if !assert.NoError(t, retry(func() error { _, err := upsert(e, &ms).Exec(ctx); return err }), "concurrent upsert") {
						return
					}
					mu.Lock()
					done = append(done, ms)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for _, ms := range done {
			checkUpsert(t, e, "concurrent", ms, []bool{true, true})
		}
	})
}

// retry runs f again while it fails for a deadlock or a busy database,
// which concurrent upserts of the same keys may meet (MariaDB, SQLite).
func retry(f func() error) error {
	for i := 0; ; i++ {
		err := f()
		if err == nil || i == 20 || !strings.Contains(strings.ToLower(err.Error()), "deadlock") && !strings.Contains(err.Error(), "SQLITE_BUSY") &&
			!strings.Contains(err.Error(), "database is locked") {
			return err
		}
		time.Sleep(time.Duration(i+1) * 5 * time.Millisecond)
	}
}
