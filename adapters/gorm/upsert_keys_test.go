package oncegorm_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	oncegorm "github.com/once-go/once/adapters/gorm"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/once"
)

// Coded has two unique keys besides its once key; code's index comes
// before email's, so MySQL's ON DUPLICATE KEY UPDATE finds a conflict on
// code first.
type Coded struct {
	ID    at.UserID
	Code  string
	Email string
	Name  string
}

// CodedText is Coded with a text (url64) key.
type CodedText struct {
	ID    at.URL64ID
	Code  string
	Email string
	Name  string
}

// MailedText has a text (url64) key and one unique key besides it.
type MailedText struct {
	ID    at.URL64ID
	Email string
	Name  string
}

// Sequenced has an AUTO_INCREMENT column next to its once key.
type Sequenced struct {
	ID    at.UserID
	Seq   int64 `gorm:"->"`
	Email string
	Name  string
}

// mysqlTables opens GORM on a MySQL-protocol db and creates the tables of
// Coded, CodedText and Sequenced with their unique keys in a fixed order
// (AutoMigrate's order is a map's). Other databases skip.
func mysqlTables(t *testing.T, db at.DB, cfg gorm.Config) *env {
	t.Helper()
	if db.Dialect != idfield.MySQL {
		t.Skip("MySQL and MariaDB: ON DUPLICATE KEY UPDATE")
	}
	e := openWith(t, db, cfg)
	require.NoError(t, oncegorm.Prepare(e.g, &Coded{}, &CodedText{}, &Sequenced{}, &MailedText{}))
	for _, q := range []string{
		`CREATE TABLE ` + e.table("codeds") + ` (id bigint PRIMARY KEY, code varchar(20) NOT NULL, email varchar(100) NOT NULL,
			name varchar(100) NOT NULL DEFAULT '', UNIQUE KEY code_key (code), UNIQUE KEY email_key (email))`,
		`CREATE TABLE ` + e.table("coded_texts") + ` (id varchar(11) CHARACTER SET ascii COLLATE ascii_bin PRIMARY KEY,
			code varchar(20) NOT NULL, email varchar(100) NOT NULL, name varchar(100) NOT NULL DEFAULT '',
			UNIQUE KEY code_key (code), UNIQUE KEY email_key (email))`,
		`CREATE TABLE ` + e.table("mailed_texts") + ` (id varchar(11) CHARACTER SET ascii COLLATE ascii_bin PRIMARY KEY,
			email varchar(100) NOT NULL UNIQUE, name varchar(100) NOT NULL DEFAULT '')`,
		`CREATE TABLE ` + e.table("sequenceds") + ` (id bigint PRIMARY KEY, seq bigint NOT NULL AUTO_INCREMENT UNIQUE,
			email varchar(100) NOT NULL UNIQUE, name varchar(100) NOT NULL DEFAULT '')`,
	} {
		_, err := db.SQL.Exec(q)
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, n := range []string{"codeds", "coded_texts", "sequenceds", "mailed_texts"} {
			_, err := db.SQL.Exec("DROP TABLE " + e.table(n))
			assert.NoError(t, err)
		}
	})
	return e
}

// seedCoded writes rows under the keys they hold (preset IDs).
func seedCoded[T any](t *testing.T, e *env, rows ...*T) {
	t.Helper()
	require.NoError(t, e.g.WithContext(keepPresets).Create(rows).Error)
}

// TestUpsertOtherUniqueKey: a row that conflicts on a unique key other
// than the conflict columns updates that key's row (MySQL updates the row
// of the first key that conflicts); the struct must hold that row's key or
// the upsert must fail with ErrUpsert naming the other key, never hold the
// key of the row its conflict columns name. Batches with an integer key,
// single rows with a text key, single rows with an integer key.
func TestUpsertOtherUniqueKey(t *testing.T) {
	at.Leased(t)
	byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	at.Each(t, func(t *testing.T, db at.DB) {
		for _, cfg := range []struct {
			name string
			gorm.Config
		}{
			{"default transaction", gorm.Config{}},
			{"SkipDefaultTransaction", gorm.Config{SkipDefaultTransaction: true}},
			{"PrepareStmt and SkipDefaultTransaction", gorm.Config{PrepareStmt: true, SkipDefaultTransaction: true}},
		} {
			t.Run(cfg.name, func(t *testing.T) {
				e := mysqlTables(t, db, cfg.Config)
				// checkRows checks that the table has n rows, B (named
				// bName) and Z first.
				checkRows := func(what string, n int, bName string) {
					t.Helper()
					var got []Coded
					require.NoError(t, e.g.Order("id").Find(&got).Error)
					if assert.Len(t, got, n, what) {
						assert.Equal(t, bName, got[0].Name, what+": B's name")
						assert.Equal(t, "Z", got[1].Name, what+": Z's name")
					}
				}

				b, z := uint64(200), uint64(300)
				seedCoded(t, e, &Coded{ID: at.UserID(once.FromUint64(b)), Code: "cb", Email: "b", Name: "B"},
					&Coded{ID: at.UserID(once.FromUint64(z)), Code: "cz", Email: "z", Name: "Z"})

				// A batch, integer key.
				batch := []Coded{{Code: "cb", Email: "z", Name: "batch"}, {Code: "cn", Email: "n", Name: "N"}}
				err := e.g.Clauses(byEmail).Create(&batch).Error
				if err != nil {
					assert.ErrorIs(t, err, oncegorm.ErrUpsert)
					assert.ErrorContains(t, err, "Create of 2 Coded with ON DUPLICATE KEY UPDATE")
					assert.ErrorContains(t, err, "code_key (code)")
					assert.Zero(t, batch[0].ID, "batch row 0 after the error")
					checkRows("batch refused", 2, "B")
				} else {
					assert.Equal(t, b, batch[0].ID.Uint64(), "batch row 0 (code cb, email z) updated B: struct got %d, want %d", batch[0].ID.Uint64(), b)
					assert.NotEqual(t, z, batch[1].ID.Uint64(), "batch row 1")
					checkRows("batch written", 3, "batch")
				}

				// One row, integer key: LAST_INSERT_ID(id) names the row
				// updated.
				one := Coded{Code: "cb", Email: "z", Name: "one"}
				require.NoError(t, e.g.Clauses(byEmail).Create(&one).Error)
				assert.Equal(t, b, one.ID.Uint64(), "one row (code cb, email z) updated B: struct got %d, want %d", one.ID.Uint64(), b)

				// One row, text key.
				tb, tz := at.URL64ID(once.FromUint64(b)), at.URL64ID(once.FromUint64(z))
				seedCoded(t, e, &CodedText{ID: tb, Code: "cb", Email: "b", Name: "B"}, &CodedText{ID: tz, Code: "cz", Email: "z", Name: "Z"})
				text := CodedText{Code: "cb", Email: "z", Name: "text"}
				err = e.g.Clauses(byEmail).Create(&text).Error
				var names []string
				require.NoError(t, e.g.Model(&CodedText{}).Order("id").Pluck("name", &names).Error)
				if err != nil {
					assert.ErrorIs(t, err, oncegorm.ErrUpsert)
					assert.ErrorContains(t, err, "Create of 1 CodedText with ON DUPLICATE KEY UPDATE")
					assert.ErrorContains(t, err, "code_key (code)")
					assert.Zero(t, text.ID, "text row after the error")
					assert.Equal(t, []string{"B", "Z"}, names, "rows after the refusal")
				} else {
					assert.Equal(t, tb, text.ID, "text row (code cb, email z) updated B: struct got %v, want %v", text.ID, tb)
					assert.Equal(t, []string{"text", "Z"}, names)
				}
			})
		}
	})
}

// TestUpsertReadBack: on a table whose only unique key besides the text
// key is the conflict column, single rows and batches that update other
// rows hold their keys (on Oracle MySQL read back by the conflict column),
// and what they wrote is committed, also under SkipDefaultTransaction.
func TestUpsertReadBack(t *testing.T) {
	at.Leased(t)
	byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	at.Each(t, func(t *testing.T, db at.DB) {
		for _, skip := range []bool{false, true} {
			t.Run(fmt.Sprintf("SkipDefaultTransaction=%v", skip), func(t *testing.T) {
				e := mysqlTables(t, db, gorm.Config{SkipDefaultTransaction: skip})
				seed := []MailedText{{Email: "a", Name: "A"}, {Email: "b", Name: "B"}}
				require.NoError(t, e.g.Create(&seed).Error)
				one := MailedText{Email: "a", Name: "one"}
				require.NoError(t, e.g.Clauses(byEmail).Create(&one).Error)
				assert.Equal(t, seed[0].ID, one.ID, "one row")
				batch := []MailedText{{Email: "c", Name: "C"}, {Email: "b", Name: "batch"}, {Email: "a", Name: "batch"}}
				require.NoError(t, e.g.Clauses(byEmail).Create(&batch).Error)
				assert.Equal(t, seed[1].ID, batch[1].ID, "batch row 1")
				assert.Equal(t, seed[0].ID, batch[2].ID, "batch row 2")
				var got []MailedText
				require.NoError(t, e.g.Order("email").Find(&got).Error)
				if assert.Len(t, got, 3) {
					assert.Equal(t, []MailedText{{seed[0].ID, "a", "batch"}, {seed[1].ID, "b", "batch"}, {batch[0].ID, "c", "C"}}, got)
				}
			})
		}
	})
}

// TestUpsertSameKeyTwice: two structs of a batch that the caller gave one
// key; the first conflicts on email and updates Z, the second inserts the
// key. The first must hold Z's key, or the upsert fail.
func TestUpsertSameKeyTwice(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := mysqlTables(t, db, gorm.Config{})
		z := at.UserID(once.FromUint64(300))
		seedCoded(t, e, &Coded{ID: z, Code: "cz", Email: "z", Name: "Z"})
		k := at.UserID(once.FromUint64(4242))
		batch := []Coded{{ID: k, Code: "c1", Email: "z", Name: "one"}, {ID: k, Code: "c2", Email: "new", Name: "two"}}
		byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		err := e.g.WithContext(keepPresets).Clauses(byEmail).Create(&batch).Error
		if err != nil {
			assert.ErrorIs(t, err, oncegorm.ErrUpsert)
			assert.ErrorContains(t, err, "rows 0 and 1")
			return
		}
		assert.Equal(t, z, batch[0].ID, "row 0 updated Z: struct got %v, want %v", batch[0].ID, z)
	})
}

// TestUpsertMovesConflictColumn: an update that changes a conflict column
// moves the row away from the values the key is read back by; a later row
// of the batch then inserts those values. The first struct must hold the
// key of the row it updated, or the upsert fail. (Account has no unique
// key but the email.)
func TestUpsertMovesConflictColumn(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		e := mysqlTables(t, db, gorm.Config{})
		ada := Account{Email: "ada", Name: "Ada"}
		require.NoError(t, e.g.Create(&ada).Error)
		move := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: []clause.Assignment{
			{Column: clause.Column{Name: "email"}, Value: gorm.Expr("CONCAT(email, '.old')")},
		}}
		batch := []Account{{Email: "ada", Name: "one"}, {Email: "ada", Name: "two"}}
		err := e.g.Clauses(move).Create(&batch).Error
		if err != nil {
			assert.ErrorIs(t, err, oncegorm.ErrUpsert)
			assert.ErrorContains(t, err, "the update sets email")
			return
		}
		assert.Equal(t, ada.ID, batch[0].ID, "row 0 updated Ada's row: struct got %v, want %v", batch[0].ID, ada.ID)
	})
}

// TestUpsertAutoIncrement: a table with an AUTO_INCREMENT column next to
// the once key; one row inserted by an upsert keeps the key it was sent
// with (MySQL reports the column's new value as the insert ID), one that
// updates a row, changing it or not, holds that row's key; also with
// clientFoundRows, under which an update that changes nothing counts one
// row, as an insert does.
func TestUpsertAutoIncrement(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		if db.Dialect != idfield.MySQL {
			t.Skip("MySQL and MariaDB: ON DUPLICATE KEY UPDATE")
		}
		for _, foundRows := range []bool{false, true} {
			t.Run(fmt.Sprintf("clientFoundRows=%v", foundRows), func(t *testing.T) {
				if foundRows {
					db.SQL = reopen(t, db, func(c *mysql.Config) { c.ClientFoundRows = true })
				}
				e := mysqlTables(t, db, gorm.Config{})
				byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
				var rows []Sequenced
				for _, r := range []Sequenced{
					{Email: "ada", Name: "x"},   // insert
					{Email: "ada", Name: "y"},   // update
					{Email: "grace", Name: "x"}, // insert after an update
					{Email: "ada", Name: "y"},   // update that changes nothing
					{Email: "edsger", Name: "x"},
				} {
					require.NoError(t, e.g.Clauses(byEmail).Create(&r).Error)
					rows = append(rows, r)
				}
				for i, r := range rows {
					var want Sequenced
					require.NoError(t, e.g.Where("email = ?", r.Email).Take(&want).Error)
					assert.Equal(t, want.ID, r.ID, "upsert %d (%s): struct got %v (seq %d), want %v", i, r.Email, r.ID.Uint64(), want.Seq, want.ID)
				}
			})
		}
	})
}

// reopen opens db's database again on one connection (so that one
// upsert follows another on it), with the DSN that set makes.
func reopen(t *testing.T, db at.DB, set func(*mysql.Config)) *sql.DB {
	t.Helper()
	var name string
	require.NoError(t, db.SQL.QueryRow("SELECT DATABASE()").Scan(&name))
	base := testenv.MySQLDSN()
	if db.Oracle {
		base = testenv.MySQL9DSN()
	}
	cfg, err := mysql.ParseDSN(base)
	require.NoError(t, err)
	cfg.DBName = name
	set(cfg)
	p, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	p.SetMaxOpenConns(1)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	return p
}

// TestUpsertNegativeKey: one row with an integer key that updates a row
// whose key is negative (a signed bigint with the top bit set, as half of
// encrypted nonces are). LAST_INSERT_ID(id) is unsigned: assigned to the
// signed key as it is, it is out of range, which strict SQL modes refuse
// and the others clip, moving the row to another key. The struct must
// hold the row's key and the row keep it, in either mode.
func TestUpsertNegativeKey(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		if db.Dialect != idfield.MySQL {
			t.Skip("MySQL and MariaDB: ON DUPLICATE KEY UPDATE")
		}
		for _, mode := range []string{"default", "''"} {
			t.Run("sql_mode="+mode, func(t *testing.T) {
				if mode != "default" {
					db.SQL = reopen(t, db, func(c *mysql.Config) { c.Params = map[string]string{"sql_mode": mode} })
				}
				e := mysqlTables(t, db, gorm.Config{})
				neg := at.UserID(once.FromInt64(-9223372036854775807))
				seedCoded(t, e, &Coded{ID: neg, Code: "cb", Email: "b", Name: "B"})
				one := Coded{Code: "cq", Email: "b", Name: "one"}
				byEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
				require.NoError(t, e.g.Clauses(byEmail).Create(&one).Error)
				assert.Equal(t, neg, one.ID, "struct got %d, want %d", one.ID.Int64(), neg.Int64())
				var got []Coded
				require.NoError(t, e.g.Find(&got).Error)
				if assert.Len(t, got, 1) {
					assert.Equal(t, neg, got[0].ID, "the row's key: %d, want %d", got[0].ID.Int64(), neg.Int64())
					assert.Equal(t, "one", got[0].Name)
				}
			})
		}
	})
}
