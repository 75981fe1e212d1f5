package sqllease_test

import (
	"database/sql"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestHolderColumnSizes: a holder column of exactly 25 characters (the
// token prefix, a space and 8 characters of the holder) is the narrowest
// accepted; one of exactly the token prefix and "key=<fingerprint>" (29)
// records the fingerprint rather than the holder; MySQL's varchar(0) is
// refused, not taken for a missing column; a text column keeps the
// holder whole.
func TestHolderColumnSizes(t *testing.T) {
	const fp = "1a2b3c4d"
	for _, d := range []migrations.Dialect{migrations.Postgres, migrations.MySQL} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db := openDB(t, d)
			ctx := driver.WithKeyFingerprint(ctxT(t), fp)
			// retype gives a fresh table a holder column of type typ.
			retype := func(typ string) string {
				table := newTable(t, db, d)
				q, _ := migrations.QuoteTable(d, table)
				if d == migrations.MySQL {
					mustExecDB(t, db, "ALTER TABLE "+q+" MODIFY holder "+typ+" NULL")
				} else {
					mustExecDB(t, db, "ALTER TABLE "+q+" ALTER COLUMN holder TYPE "+typ)
				}
				return table
			}
			// resize gives a fresh table a holder column of n characters.
			resize := func(n int) string { return retype("varchar(" + strconv.Itoa(n) + ")") }
			acquire := func(t *testing.T, db *sql.DB, table string) (*sqllease.Strategy, error) {
				s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, Holder: "web-7f9c/4242", LowestFirst: true})
				_, err := s.Acquire(ctx, time.Hour)
				return s, err
			}

			s, err := acquire(t, db, resize(25))
			if err != nil {
				t.Fatalf("Acquire with holder varchar(25): %v", err)
			}
			if r := rowOf(t, ctx, s, 0); r.Holder != "web-7f9c" || r.Fingerprint != "" {
				t.Errorf("varchar(25): holder %q fingerprint %q; want %q and none (no room for the key)", r.Holder, r.Fingerprint, "web-7f9c")
			}
			if _, err := acquire(t, db, resize(24)); !errors.Is(err, driver.ErrConfig) {
				t.Errorf("Acquire with holder varchar(24): %v; want ErrConfig", err)
			}

			s, err = acquire(t, db, resize(29))
			if err != nil {
				t.Fatalf("Acquire with holder varchar(29): %v", err)
			}
			if r := rowOf(t, ctx, s, 0); r.Holder != "" || r.Fingerprint != fp {
				t.Errorf("varchar(29): holder %q fingerprint %q; want none and %q", r.Holder, r.Fingerprint, fp)
			}

			if d == migrations.MySQL {
				if _, err := acquire(t, db, resize(0)); !errors.Is(err, driver.ErrConfig) {
					t.Errorf("Acquire with holder varchar(0): %v; want ErrConfig", err)
				}
			}

			texts := []string{"text"}
			if d == migrations.MySQL {
				texts = append(texts, "tinytext")
			}
			for _, typ := range texts {
				s, err := acquire(t, db, retype(typ))
				if err != nil {
					t.Fatalf("Acquire with holder %s: %v", typ, err)
				}
				if r := rowOf(t, ctx, s, 0); r.Holder != "web-7f9c/4242" || r.Fingerprint != fp {
					t.Errorf("%s: holder %q fingerprint %q; want %q and %q", typ, r.Holder, r.Fingerprint, "web-7f9c/4242", fp)
				}
			}
		})
	}
}
