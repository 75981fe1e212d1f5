package sqllease_test

import (
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestConflictCountsCandidates: when a contender beats every claim of an
// Acquire, ErrConflict counts the free rows it tried: up to
// Options.Candidates in all, read from the random start upwards and then
// from the range's first ID, each row once. (The start is random: 30
// tries make sure some start in the range's upper part.)
func TestConflictCountsCandidates(t *testing.T) {
	d := migrations.SQLite
	db, l := openLossy(t, d, t.TempDir()+"/conflict.db")
	table := newTable(t, db, d)
	q, _ := migrations.QuoteTable(d, table)
	var contend atomic.Bool
	l.before(func(query string) {
		if contend.Load() && strings.Contains(query, "AND lock_version = ") { // a claim
			mustExecDB(t, db, "UPDATE "+q+" SET lock_version = lock_version + 1")
		}
	})
	ctx := ctxT(t)
	for _, c := range []struct {
		ids              driver.IDRange
		candidates, want int
	}{
		{driver.IDRange{Min: 0, Max: 9}, 5, 5},
		{driver.IDRange{Min: 0, Max: 1}, 5, 2},
	} {
		s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, MachineIDs: &c.ids, Candidates: c.candidates})
		want := strconv.Itoa(c.want) + " free rows"
		for range 30 {
			contend.Store(true)
			_, err := s.Acquire(ctx, time.Hour)
			contend.Store(false)
			if !errors.Is(err, driver.ErrConflict) || !strings.Contains(err.Error(), want) {
				t.Fatalf("MachineIDs %v, Candidates %d, every claim beaten: %v; want ErrConflict counting %s", c.ids, c.candidates, err, want)
			}
		}
	}
}
