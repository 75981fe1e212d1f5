package oncebun_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/once"
)

// Coded has two unique keys besides its once key; code's index comes
// before email's, so MySQL's ON DUPLICATE KEY UPDATE finds a conflict on
// code first.
type Coded struct {
	bun.BaseModel `bun:"table:codeds"`
	ID            at.UserID `bun:",pk"`
	Code          string
	Email         string
	Name          string
}

func (c *Coded) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, c)
}

// CodedText is Coded with a text (url64) key.
type CodedText struct {
	bun.BaseModel `bun:"table:coded_texts"`
	ID            at.URL64ID `bun:",pk"`
	Code          string
	Email         string
	Name          string
}

func (c *CodedText) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, c)
}

// Sequenced has an AUTO_INCREMENT column next to its once key.
type Sequenced struct {
	bun.BaseModel `bun:"table:sequenceds"`
	ID            at.UserID `bun:",pk"`
	Seq           int64     `bun:",scanonly"`
	Email         string
	Name          string
}

func (s *Sequenced) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, s)
}

// mysqlTables opens bun on db (MySQL or MariaDB; others skip) and creates
// the tables of Coded, CodedText and Sequenced, with their unique keys in
// a fixed order.
func mysqlTables(t *testing.T, db at.DB) *bun.DB {
	t.Helper()
	if db.Dialect != idfield.MySQL {
		t.Skip("MySQL and MariaDB: ON DUPLICATE KEY UPDATE")
	}
	b := bun.NewDB(db.SQL, mysqldialect.New())
	require.NoError(t, oncebun.Register(b, (*Coded)(nil), (*CodedText)(nil), (*Sequenced)(nil)))
	for _, q := range []string{
		`CREATE TABLE codeds (id bigint PRIMARY KEY, code varchar(20) NOT NULL, email varchar(100) NOT NULL,
			name varchar(100) NOT NULL DEFAULT '', UNIQUE KEY code_key (code), UNIQUE KEY email_key (email))`,
		`CREATE TABLE coded_texts (id varchar(11) CHARACTER SET ascii COLLATE ascii_bin PRIMARY KEY,
			code varchar(20) NOT NULL, email varchar(100) NOT NULL, name varchar(100) NOT NULL DEFAULT '',
			UNIQUE KEY code_key (code), UNIQUE KEY email_key (email))`,
		`CREATE TABLE sequenceds (id bigint PRIMARY KEY, seq bigint NOT NULL AUTO_INCREMENT UNIQUE,
			email varchar(100) NOT NULL UNIQUE, name varchar(100) NOT NULL DEFAULT '')`,
	} {
		_, err := db.SQL.Exec(q)
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		_, err := db.SQL.Exec("DROP TABLE codeds, coded_texts, sequenceds")
		assert.NoError(t, err)
	})
	return b
}

// TestUpsertOtherUniqueKey: a row that conflicts on a unique key other
// than the one the caller means updates that key's row (MySQL updates the
// row of the first key that conflicts); the struct must hold that row's
// key, or the upsert fail with ErrUpsert, never hold another row's key.
// One row with an integer key, a batch, one row with a text key.
func TestUpsertOtherUniqueKey(t *testing.T) {
	at.Leased(t)
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		b := mysqlTables(t, db)
		bID, zID := at.UserID(once.FromUint64(200)), at.UserID(once.FromUint64(300))
		_, err := b.NewInsert().Model(&[]Coded{{ID: bID, Code: "cb", Email: "b", Name: "B"}, {ID: zID, Code: "cz", Email: "z", Name: "Z"}}).Exec(keepPresets)
		require.NoError(t, err)
		one := Coded{Code: "cb", Email: "z", Name: "one"}
		_, err = b.NewInsert().Model(&one).On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)").Exec(ctx)
		require.NoError(t, err)
		assert.Equal(t, bID, one.ID, "one row (code cb, email z) updated B: struct got %v, want %v", one.ID.Uint64(), bID.Uint64())

		batch := []Coded{{Code: "cb", Email: "z", Name: "batch"}, {Code: "cn", Email: "n", Name: "N"}}
		_, err = b.NewInsert().Model(&batch).On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)").Exec(ctx)
		if err != nil {
			assert.ErrorIs(t, err, oncebun.ErrUpsert)
			assert.Zero(t, batch[0].ID)
		} else {
			assert.Equal(t, bID, batch[0].ID, "batch row 0 updated B: struct got %v, want %v", batch[0].ID.Uint64(), bID.Uint64())
		}

		tb, tz := at.URL64ID(once.FromUint64(200)), at.URL64ID(once.FromUint64(300))
		_, err = b.NewInsert().Model(&[]CodedText{{ID: tb, Code: "cb", Email: "b", Name: "B"}, {ID: tz, Code: "cz", Email: "z", Name: "Z"}}).Exec(keepPresets)
		require.NoError(t, err)
		text := CodedText{Code: "cb", Email: "z", Name: "text"}
		_, err = b.NewInsert().Model(&text).On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)").Exec(ctx)
		if err != nil {
			assert.ErrorIs(t, err, oncebun.ErrUpsert)
			assert.Zero(t, text.ID)
		} else {
			assert.Equal(t, tb, text.ID, "text row updated B: struct got %v, want %v", text.ID, tb)
		}
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
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		if db.Dialect != idfield.MySQL {
			t.Skip("MySQL and MariaDB: ON DUPLICATE KEY UPDATE")
		}
		for _, foundRows := range []bool{false, true} {
			t.Run(fmt.Sprintf("clientFoundRows=%v", foundRows), func(t *testing.T) {
				if foundRows {
					db.SQL = reopen(t, db, func(c *mysql.Config) { c.ClientFoundRows = true })
				}
				b := mysqlTables(t, db)
				var rows []Sequenced
				for _, r := range []Sequenced{
					{Email: "ada", Name: "x"},   // insert
					{Email: "ada", Name: "y"},   // update
					{Email: "grace", Name: "x"}, // insert after an update
					{Email: "ada", Name: "y"},   // update that changes nothing
					{Email: "edsger", Name: "x"},
				} {
					_, err := b.NewInsert().Model(&r).On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)").Exec(ctx)
					require.NoError(t, err)
					rows = append(rows, r)
				}
				for i, r := range rows {
					var want Sequenced
					require.NoError(t, b.NewSelect().Model(&want).ColumnExpr("*").Where("email = ?", r.Email).Scan(ctx))
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
	ctx := context.Background()
	at.Each(t, func(t *testing.T, db at.DB) {
		if db.Dialect != idfield.MySQL {
			t.Skip("MySQL and MariaDB: ON DUPLICATE KEY UPDATE")
		}
		for _, mode := range []string{"default", "''"} {
			t.Run("sql_mode="+mode, func(t *testing.T) {
				if mode != "default" {
					db.SQL = reopen(t, db, func(c *mysql.Config) { c.Params = map[string]string{"sql_mode": mode} })
				}
				b := mysqlTables(t, db)
				neg := at.UserID(once.FromInt64(-9223372036854775807))
				_, err := b.NewInsert().Model(&Coded{ID: neg, Code: "cb", Email: "b", Name: "B"}).Exec(keepPresets)
				require.NoError(t, err)
				for _, q := range []func(m *Coded) *bun.InsertQuery{
					func(m *Coded) *bun.InsertQuery {
						return b.NewInsert().Model(m).On("DUPLICATE KEY UPDATE").Set("name = VALUES(name)")
					},
					func(m *Coded) *bun.InsertQuery { return b.NewInsert().Model(m).On("DUPLICATE KEY UPDATE") },
					func(m *Coded) *bun.InsertQuery {
						return b.NewInsert().Model(m).On("DUPLICATE KEY UPDATE name = VALUES(name)")
					},
				} {
					one := Coded{Code: "cq", Email: "b", Name: "one"}
					_, err = q(&one).Exec(ctx)
					require.NoError(t, err)
					assert.Equal(t, neg, one.ID, "struct got %d, want %d", one.ID.Int64(), neg.Int64())
					var got []Coded
					require.NoError(t, b.NewSelect().Model(&got).Scan(ctx))
					if assert.Len(t, got, 1) {
						assert.Equal(t, neg, got[0].ID, "the row's key: %d, want %d", got[0].ID.Int64(), neg.Int64())
						assert.Equal(t, "one", got[0].Name)
					}
				}
			})
		}
	})
}
