package oncegorm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.IsType(t, &gorm.PreparedStmtDB{}, e.g.ConnPool, "ConnPool")

		us := make([]User, 300)
		for i := range us {
			us[i].Email = "u" + itoa(int64(i)) + "@example.com"
		}
		for range 2 { // the second batch runs the prepared statement again
			for i := range us {
				us[i].ID = at.UserID{}
			}
			require.NoError(t, e.g.Create(&us).Error)
			var n int64
			for _, u := range us {
				var email string
				require.NoError(t, e.g.Table(e.table("users")).Where("id = ?", u.ID).Select("email").Scan(&email).Error, "row of key %v", u.ID)
				require.Equal(t, u.Email, email, "row of key %v", u.ID)
			}
			e.g.Table(e.table("users")).Count(&n)
			require.NoError(t, e.g.Exec("DELETE FROM "+e.table("users")).Error, "DELETE")
			require.Equal(t, int64(len(us)), n, "rows")
		}

		upsertCases(t, e)

		err := e.g.Create(&Post{Title: "no author"}).Error
		assert.ErrorIs(t, err, once.ErrInvalid, "zero foreign key")
	})
}
