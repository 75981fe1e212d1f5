package oncegorm_test

import (
	"errors"
	"testing"

	"gorm.io/gorm"

	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/once"
)

// TestPrepareStmt: with GORM's PrepareStmt, which the README suggests for
// batched inserts on MySQL and MariaDB, keys are filled, batches hold the
// keys of their rows, upserts read the real keys back (the LAST_INSERT_ID
// path included) and an unset ID is refused before any SQL runs.
func TestPrepareStmt(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := openWith(t, db, gorm.Config{PrepareStmt: true})
		if _, ok := e.g.ConnPool.(*gorm.PreparedStmtDB); !ok {
			t.Fatalf("ConnPool is %T, want *gorm.PreparedStmtDB", e.g.ConnPool)
		}

		us := make([]User, 300)
		for i := range us {
			us[i].Email = "u" + itoa(int64(i)) + "@example.com"
		}
		for range 2 { // the second batch runs the prepared statement again
			for i := range us {
				us[i].ID = at.UserID{}
			}
			if err := e.g.Create(&us).Error; err != nil {
				t.Fatal(err)
			}
			var n int64
			for _, u := range us {
				var email string
				if err := e.g.Table(e.table("users")).Where("id = ?", u.ID).Select("email").Scan(&email).Error; err != nil || email != u.Email {
					t.Fatalf("row of key %v: %q (%v), want %q", u.ID, email, err, u.Email)
				}
			}
			e.g.Table(e.table("users")).Count(&n)
			if e.g.Exec("DELETE FROM "+e.table("users")).Error != nil || n != int64(len(us)) {
				t.Fatalf("%d rows, want %d", n, len(us))
			}
		}

		upsertCases(t, e)

		err := e.g.Create(&Post{Title: "no author"}).Error
		if !errors.Is(err, once.ErrInvalid) {
			t.Errorf("zero foreign key: %v, want once.ErrInvalid", err)
		}
	})
}
