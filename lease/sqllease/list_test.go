package sqllease_test

import (
	"database/sql"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestList: List returns the held machine IDs in ascending order, each
// with the time left by the database's clock, the holder its claimer
// recorded (Options.Holder, by default host/pid) and its token as Release
// takes it: releasing a slot frees exactly that holding, and a slot read
// before a reclaim (which replaces the token) releases nothing.
func TestList(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		ctx := ctxT(t)
		table := newTable(t, db, d)
		a := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, Holder: "web-1/42"})
		b := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
		if slots, err := a.List(ctx); err != nil || len(slots) != 0 {
			t.Fatalf("List of a fresh table: %+v, %v", slots, err)
		}
		var leases []driver.Lease
		for i, s := range []*sqllease.Strategy{a, a, b, a} {
			l, err := acquire(ctx, s, time.Duration(i+1)*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			leases = append(leases, l)
		}
		if err := a.Release(ctx, leases[3]); err != nil {
			t.Fatal(err)
		}
		waitFree(t, a, leases[3].MachineID)
		byID := map[int]int{} // machine ID -> index in leases
		for i, l := range leases[:3] {
			byID[l.MachineID] = i
		}
		slots, err := b.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(slots) != 3 {
			t.Fatalf("List: %+v; want the 3 held IDs", slots)
		}
		host, _ := os.Hostname()
		for i, sl := range slots {
			if i > 0 && sl.MachineID <= slots[i-1].MachineID {
				t.Errorf("List not in ascending order: %+v", slots)
			}
			j, ok := byID[sl.MachineID]
			if !ok {
				t.Fatalf("List: machine ID %d is not held", sl.MachineID)
			}
			want := "web-1/42"
			if j == 2 {
				want = host + "/" + strconv.Itoa(os.Getpid())
			}
			ttl := time.Duration(j+1) * time.Hour
			if sl.Holder != want || sl.Token != leases[j].Token || sl.TTL > ttl || sl.TTL < ttl-time.Minute {
				t.Errorf("slot %+v; want holder %q, token %s, a little under %v left", sl, want, leases[j].Token, ttl)
			}
		}

		// A slot read before a reclaim releases nothing; the new one frees.
		old := slots[0]
		nl, err := a.Reclaim(ctx, driver.Lease{MachineID: old.MachineID, Token: old.Token}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Release(ctx, driver.Lease{MachineID: old.MachineID, Token: old.Token}); err != nil {
			t.Fatal(err)
		}
		if !rowOf(t, ctx, b, old.MachineID).Held {
			t.Fatalf("machine ID %d freed by a slot whose token a reclaim replaced", old.MachineID)
		}
		now, err := b.List(ctx)
		if err != nil || len(now) != 3 || now[0].Token != nl.Token || now[0].Holder != "web-1/42" {
			t.Fatalf("List after the reclaim: %+v, %v; want machine ID %d with token %s", now, err, old.MachineID, nl.Token)
		}
		if err := b.Release(ctx, driver.Lease{MachineID: now[0].MachineID, Token: now[0].Token}); err != nil {
			t.Fatal(err)
		}
		waitFree(t, b, old.MachineID)
	})
}

// TestHolderColumn: the holder column is optional. A table without it
// (older, or made by the Elixir library) works and records nothing; a
// narrow one gets the holder cut to fit; one too narrow, or not a
// character column, is refused naming the column and the type expected.
func TestHolderColumn(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		ctx := ctxT(t)
		long := "pod-" + strings.Repeat("x", 196) // 200 bytes, the most CleanHolder keeps
		table := newTable(t, db, d)
		q, _ := migrations.QuoteTable(d, table)
		mustExecDB(t, db, "ALTER TABLE "+q+" DROP COLUMN holder")
		s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, Holder: long})
		if l, err := s.Acquire(ctx, time.Hour); err != nil {
			t.Fatalf("Acquire on a table without a holder column: %v", err)
		} else if slots, err := s.List(ctx); err != nil || len(slots) != 1 || slots[0].Holder != "" || slots[0].Token != l.Token {
			t.Fatalf("List without a holder column: %+v, %v", slots, err)
		}

		if d != migrations.SQLite { // SQLite's text has no length
			narrow := newTable(t, db, d)
			qn, _ := migrations.QuoteTable(d, narrow)
			alter := "ALTER TABLE " + qn + " ALTER COLUMN holder TYPE varchar(40)"
			if d == migrations.MySQL {
				alter = "ALTER TABLE " + qn + " MODIFY holder varchar(40) NULL"
			}
			mustExecDB(t, db, alter)
			s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: narrow, Holder: long})
			if _, err := s.Acquire(ctx, time.Hour); err != nil {
				t.Fatalf("Acquire with holder varchar(40): %v", err)
			}
			slots, err := s.List(ctx)
			if want := long[:40-17]; err != nil || len(slots) != 1 || slots[0].Holder != want {
				t.Fatalf("List with holder varchar(40): %+v, %v; want the holder cut to %q", slots, err, want)
			}
			mustExecDB(t, db, "UPDATE "+qn+" SET holder = NULL")
			mustExecDB(t, db, strings.ReplaceAll(alter, "varchar(40)", "varchar(20)"))
			_, err = newStrategy(t, db, sqllease.Options{Dialect: d, Table: narrow}).Acquire(ctx, time.Hour)
			if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "holder") || !strings.Contains(err.Error(), "varchar(255)") {
				t.Errorf("Acquire with holder varchar(20): %v; want ErrConfig naming holder and varchar(255)", err)
			}
		}

		wrong := newTable(t, db, d)
		qw, _ := migrations.QuoteTable(d, wrong)
		mustExecDB(t, db, "ALTER TABLE "+qw+" DROP COLUMN holder")
		mustExecDB(t, db, "ALTER TABLE "+qw+" ADD COLUMN holder INTEGER")
		_, err := newStrategy(t, db, sqllease.Options{Dialect: d, Table: wrong}).Acquire(ctx, time.Hour)
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "holder") {
			t.Errorf("Acquire with an integer holder column: %v; want ErrConfig naming holder", err)
		}
	})
}
