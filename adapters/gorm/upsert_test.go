package oncegorm_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm/clause"

	oncegorm "github.com/once-go/once/adapters/gorm"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// Account has a natural key (the email) next to its once key: the table
// that upserts are for.
type Account struct {
	ID    at.UserID
	Email string `gorm:"size:100;uniqueIndex"`
	Name  string `gorm:"size:100"`
}

// rowOf returns the email of the row whose key is id ("" when none).
func rowOf(t *testing.T, e *env, id at.UserID) string {
	t.Helper()
	var email string
	e.g.Table(e.table("accounts")).Where("id = ?", id).Select("email").Scan(&email)
	return email
}

// checkUpsert checks that each account holds the key of the row with its
// email, or (written[i] false: a DO NOTHING that skipped it) the zero key
// or the key of the existing row.
func checkUpsert(t *testing.T, e *env, what string, as []Account, written []bool) {
	t.Helper()
	for i, a := range as {
		var want at.UserID
		e.g.Table(e.table("accounts")).Where("email = ?", a.Email).Select("id").Scan(&want)
		if a.ID.IsZero() && !written[i] {
			continue
		}
		assert.Equal(t, want, a.ID, "%s: row %d (%s) holds the key of the row %q; want the key of the row with its email", what, i, a.Email, rowOf(t, e, a.ID))
	}
}

// TestUpsert: after ON CONFLICT DO UPDATE (ON DUPLICATE KEY UPDATE) each
// struct holds the key of the row it was written to; after DO NOTHING a
// struct whose row was not written holds the zero key or the existing
// row's, never a key no row has; single rows and batches.
func TestUpsert(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) { upsertCases(t, open(t, db)) })
}

// TestUpsertWithoutReturning: on Oracle MySQL, which has no RETURNING, a
// batch upsert reads its keys back by the conflict columns; without them
// it is refused before any SQL runs. (TestUpsert runs the other cases
// there: LAST_INSERT_ID for one row, else by key and by conflict columns.)
func TestUpsertWithoutReturning(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		if !db.Oracle {
			t.Skip("Oracle MySQL only")
		}
		e := open(t, db)
		seed := []Account{{Email: "ada@example.com", Name: "Ada"}}
		require.NoError(t, e.g.Create(&seed).Error)

		// One row without conflict columns: LAST_INSERT_ID(id) names the
		// row it updated.
		for _, c := range []struct {
			name string
			oc   clause.OnConflict
		}{
			{"DoUpdates", clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name"})}},
			{"UpdateAll", clause.OnConflict{UpdateAll: true}},
		} {
			one := Account{Email: "ada@example.com", Name: c.name}
			require.NoError(t, e.g.Clauses(c.oc).Create(&one).Error, "%s", c.name)
			assert.Equal(t, seed[0].ID, one.ID, "%s, existing row: ID (the key of %q)", c.name, rowOf(t, e, one.ID))
			fresh := Account{Email: c.name + "@example.com"}
			require.NoError(t, e.g.Clauses(c.oc).Create(&fresh).Error, "%s, new row", c.name)
			checkUpsert(t, e, c.name+", new row", []Account{fresh}, []bool{true})
		}

		// Without RETURNING, a batch that may update other rows needs
		// the conflict columns; it is refused before any SQL runs.
		e.log.take()
		batch := []Account{{Email: "ada@example.com"}, {Email: "x@example.com"}}
		err := e.g.Clauses(clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name"})}).Create(&batch).Error
		if assert.ErrorIs(t, err, oncegorm.ErrUpsert, "batch without conflict columns") {
			assert.Contains(t, err.Error(), "Create of 2 Account with ON DUPLICATE KEY UPDATE", "batch without conflict columns: the error names the call")
		}
		for _, s := range e.log.take() {
			assert.False(t, strings.HasPrefix(s, "INSERT"), "ran %s", s)
		}
		assert.True(t, batch[0].ID.IsZero() && batch[1].ID.IsZero(), "keys left behind: %v", batch)
	})
}

func upsertCases(t *testing.T, e *env) {
	seed := []Account{{Email: "ada@example.com", Name: "Ada"}, {Email: "grace@example.com", Name: "Grace"}}
	require.NoError(t, e.g.Create(&seed).Error)
	byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}

	one := Account{Email: "ada@example.com", Name: "Ada L."}
	require.NoError(t, e.g.Clauses(byEmail).Create(&one).Error)
	checkUpsert(t, e, "DO UPDATE, one row", []Account{one}, []bool{true})
	assert.Equal(t, seed[0].ID, one.ID, "DO UPDATE, one row: ID, want the existing row's")

	all := Account{Email: "grace@example.com", Name: "Grace H."}
	require.NoError(t, e.g.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}).Create(&all).Error)
	checkUpsert(t, e, "UpdateAll, one row", []Account{all}, []bool{true})

	batch := []Account{{Email: "edsger@example.com"}, {Email: "ada@example.com", Name: "Ada"}, {Email: "barbara@example.com"}}
	require.NoError(t, e.g.Clauses(byEmail).Create(&batch).Error)
	checkUpsert(t, e, "DO UPDATE, batch", batch, []bool{true, true, true})

	skip := Account{Email: "grace@example.com", Name: "ignored"}
	require.NoError(t, e.g.Clauses(clause.OnConflict{DoNothing: true}).Create(&skip).Error)
	checkUpsert(t, e, "DO NOTHING, one row", []Account{skip}, []bool{false})

	skips := []Account{{Email: "alan@example.com"}, {Email: "ada@example.com"}, {Email: "donald@example.com"}}
	require.NoError(t, e.g.Clauses(clause.OnConflict{DoNothing: true}).Create(&skips).Error)
	checkUpsert(t, e, "DO NOTHING, batch", skips, []bool{true, false, true})
	assert.False(t, skips[0].ID.IsZero() || skips[2].ID.IsZero(), "DO NOTHING, batch: written rows hold %v and %v", skips[0].ID, skips[2].ID)

	// A key the caller set: kept when it is the existing row's, dropped
	// when the row was not written and no row has it.
	mine := at.UserID(once.FromUint64(4242))
	preset := []Account{{ID: seed[1].ID, Email: "grace@example.com"}, {ID: mine, Email: "ada@example.com"}}
	require.NoError(t, e.g.WithContext(keepPresets).Clauses(clause.OnConflict{DoNothing: true}).Create(&preset).Error)
	checkUpsert(t, e, "DO NOTHING, keys set by the caller", preset, []bool{false, false})
	assert.Equal(t, seed[1].ID, preset[0].ID, "the existing row's key")

	// Save of a slice upserts by primary key (UpdateAll); a row whose key
	// is set is a preset ID, kept with the opt-in.
	saved := []Account{seed[0], {Email: "john@example.com"}}
	saved[0].Name = "Ada Lovelace"
	require.NoError(t, e.g.WithContext(keepPresets).Save(&saved).Error)
	checkUpsert(t, e, "Save of a slice", saved, []bool{true, true})

	if e.db.Dialect == idfield.MySQL {
		ign := []Account{{Email: "ken@example.com"}, {Email: "ada@example.com"}}
		require.NoError(t, e.g.Clauses(clause.Insert{Modifier: "IGNORE"}).Create(&ign).Error)
		checkUpsert(t, e, "INSERT IGNORE, batch", ign, []bool{true, false})
	} else {
		// DO UPDATE ... WHERE: a row the WHERE refuses is not written.
		where := byEmail
		where.Where = clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: e.table("accounts") + ".name <> ?", Vars: []any{"Grace H."}}}}
		ws := []Account{{Email: "grace@example.com", Name: "refused"}, {Email: "niklaus@example.com"}}
		require.NoError(t, e.g.Clauses(where).Create(&ws).Error)
		checkUpsert(t, e, "DO UPDATE WHERE", ws, []bool{false, true})
		assert.True(t, ws[0].ID.IsZero(), "DO UPDATE WHERE false: %v, want the zero key", ws[0].ID)
	}
}

// TestUpsertConcurrent: goroutines upsert the same emails at once, one row
// and two rows per statement; every struct ends up holding the key of the
// row with its email.
func TestUpsertConcurrent(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := open(t, db)
		byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		emails := []string{"a@example.com", "b@example.com", "c@example.com"}
		var mu sync.Mutex
		var done [][]Account
		var wg sync.WaitGroup
		for g := range 12 {
			wg.Go(func() {
				for i := range 4 {
					as := []Account{{Email: emails[(g+i)%3], Name: "x"}}
					if i%2 == 1 { // two rows, in a fixed order
						as = []Account{{Email: emails[0]}, {Email: emails[2]}}
					}
					var err error
					for try := 0; try < 20; try++ {
						if err = e.g.Clauses(byEmail).Create(&as).Error; err == nil || !retryable(err) {
							break
						}
						time.Sleep(time.Duration(try+1) * 5 * time.Millisecond)
					}
					if !assert.NoError(t, err, "concurrent upsert") {
						return
					}
					mu.Lock()
					done = append(done, as)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for _, as := range done {
			checkUpsert(t, e, "concurrent", as, []bool{true, true})
		}
	})
}

// retryable reports a deadlock or a busy database, which concurrent
// upserts of the same keys may meet (MariaDB, SQLite).
func retryable(err error) bool {
	s := err.Error()
	return strings.Contains(strings.ToLower(s), "deadlock") || strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked")
}
