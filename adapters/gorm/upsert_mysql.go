package oncegorm

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/once-go/once/adapters/internal/upsert"
	"github.com/once-go/once/once"
)

// checkReadBack refuses, before any SQL runs, an upsert on MySQL without
// RETURNING whose rows cannot be found again after the statement: rows
// that updated another row are found by the conflict columns, so these
// must be named and must still hold the row's values after the update;
// rows found by the key they were sent with must each have their own.
func (u *upsertStmt) checkReadBack() error {
	if len(u.conflict.Columns) == 0 && !u.conflict.UpdateAll {
		return fmt.Errorf("%w: %s: %s returns no keys; name the unique key's columns in clause.OnConflict{Columns: ...}",
			ErrUpsert, u.call(), u.db.Dialector.Name())
	}
	if i, j, ok := upsert.Repeated(u.sent); ok {
		return fmt.Errorf("%w: %s: rows %d and %d are sent with the same key, so the key cannot tell which of them was written under it",
			ErrUpsert, u.call(), i, j)
	}
	for _, a := range u.conflict.DoUpdates {
		name := a.Column.Name
		if !strings.EqualFold(name, u.pk.DBName) && !u.isConflictColumn(name) {
			continue
		}
		if c, ok := a.Value.(clause.Column); ok && strings.EqualFold(c.Name, name) && (c.Table == "excluded" || c.Table == "") {
			continue // the value it was sent with, or its own
		}
		return fmt.Errorf("%w: %s: the update sets %s, by which the row written is found again; set it to its new value (clause.AssignmentColumns) or leave it alone",
			ErrUpsert, u.call(), name)
	}
	return nil
}

func (u *upsertStmt) isConflictColumn(name string) bool {
	for _, c := range u.conflict.Columns {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// checkUniqueKeys refuses the read-back by the conflict columns when the
// table has a unique key other than the primary key and theirs: MySQL's
// ON DUPLICATE KEY UPDATE updates the row of whichever unique key
// conflicts first, which the conflict columns need not name. It reads the
// catalog inside the statement's transaction, after the statement: the
// statement's metadata lock holds off any ALTER TABLE until the
// transaction ends, so the keys read are those the statement ran with.
func (u *upsertStmt) checkUniqueKeys() error {
	stmt := u.db.Statement
	schemaName, table := "", strings.Trim(stmt.Table, "`")
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		schemaName, table = strings.Trim(table[:i], "`"), strings.Trim(table[i+1:], "`")
	}
	rows, err := stmt.ConnPool.QueryContext(stmt.Context,
		`SELECT INDEX_NAME, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 0
		ORDER BY INDEX_NAME, SEQ_IN_INDEX`, schemaName, table)
	if err != nil {
		return fmt.Errorf("%w: %s: reading the unique keys of %s: %w", ErrUpsert, u.call(), stmt.Table, err)
	}
	defer rows.Close()
	type key struct {
		name   string
		cols   []string
		prefix bool // a column prefix: unique on part of the value
	}
	var keys []*key
	for rows.Next() {
		var name string
		var col sql.NullString
		var sub sql.NullInt64
		if err := rows.Scan(&name, &col, &sub); err != nil {
			return err
		}
		if len(keys) == 0 || keys[len(keys)-1].name != name {
			keys = append(keys, &key{name: name})
		}
		k := keys[len(keys)-1]
		if !col.Valid {
			col.String = "(expression)" // a functional key part
		}
		k.cols = append(k.cols, col.String)
		k.prefix = k.prefix || sub.Valid
	}
	if err := rows.Err(); err != nil {
		return err
	}
	primary, conflict := false, false
	var others []string
	for _, k := range keys {
		if k.name == "PRIMARY" {
			primary = true
			continue
		}
		if !k.prefix && u.sameColumns(k.cols) {
			conflict = true
			continue
		}
		others = append(others, fmt.Sprintf("%s (%s)", k.name, strings.Join(k.cols, ", ")))
	}
	var cols []string
	for _, c := range u.conflict.Columns {
		cols = append(cols, c.Name)
	}
	switch {
	case !primary:
		return fmt.Errorf("%w: %s: the catalog shows no primary key of table %s", ErrUpsert, u.call(), stmt.Table)
	case len(others) > 0:
		return fmt.Errorf("%w: %s: table %s has unique keys besides the primary key and the conflict columns (%s): %s; without RETURNING, a row that updated another row is found by the conflict columns, and MySQL updates the row of whichever key conflicts first; upsert one row per statement with an integer key (LAST_INSERT_ID), or on a table without these keys",
			ErrUpsert, u.call(), stmt.Table, strings.Join(cols, ", "), strings.Join(others, ", "))
	case !conflict:
		return fmt.Errorf("%w: %s: the conflict columns (%s) are no unique key of table %s, so they cannot find the row written",
			ErrUpsert, u.call(), strings.Join(cols, ", "), stmt.Table)
	}
	return nil
}

// sameColumns reports whether cols are the conflict columns, in any order.
func (u *upsertStmt) sameColumns(cols []string) bool {
	if len(cols) != len(u.conflict.Columns) {
		return false
	}
	for _, c := range cols {
		if !u.isConflictColumn(c) {
			return false
		}
	}
	return true
}

// lastInsertIDOf is the value of the key's assignment that has MySQL
// report the key of the row an upsert updated: LAST_INSERT_ID(id), which
// is unsigned, so a signed key takes it back as signed (the same 64 bits):
// a negative key would be out of range, refused in strict SQL modes and
// clipped, moving the row to another key, in the others.
func lastInsertIDOf(f once.Format) string {
	if f == once.Unsigned {
		return "LAST_INSERT_ID(?)"
	}
	return "CAST(LAST_INSERT_ID(?) AS SIGNED)"
}

// lastInsertID sets the struct of a one-row upsert whose update assigns
// id = LAST_INSERT_ID(id) from the statement's result. An update sets the
// insert ID to the key of the row it updated; an insert leaves it 0, or
// sets it to the new value of an AUTO_INCREMENT column. Affected rows tell
// them apart: 1 for an insert, 2 for an update, 0 for an update that
// changed nothing, except with the client flag CLIENT_FOUND_ROWS
// (clientFoundRows=true), under which the latter is 1 too; then the keys
// themselves answer.
func (u *upsertStmt) lastInsertID(res sql.Result) error {
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if id == 0 {
		return nil // inserted under the key it was sent with
	}
	got := once.FromInt64(id)
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 1 && got != u.sent[0] {
		found, err := u.existing([]once.ID{u.sent[0], got})
		if err != nil {
			return err
		}
		switch {
		case found[u.sent[0]]:
			return nil // inserted; the insert ID is an AUTO_INCREMENT column's
		case !found[got]:
			return fmt.Errorf("%w: %s: neither the key sent nor the insert ID %d is a row's", ErrUpsert, u.call(), id)
		}
	}
	u.setKey(u.elems[0], got)
	return nil
}

// inTransaction reports whether p is a transaction.
func inTransaction(p gorm.ConnPool) bool {
	c, ok := p.(gorm.TxCommitter)
	return ok && c != nil && !reflect.ValueOf(c).IsNil()
}

// begin runs the rest of the statement in a transaction of its own; end
// commits it, or rolls it back when the statement failed.
func (u *upsertStmt) begin() (end func(), err error) {
	db, stmt := u.db, u.db.Statement
	var tx gorm.ConnPool
	switch b := stmt.ConnPool.(type) {
	case gorm.TxBeginner:
		tx, err = b.BeginTx(stmt.Context, nil)
	case gorm.ConnPoolBeginner:
		tx, err = b.BeginTx(stmt.Context, nil)
	default:
		return nil, fmt.Errorf("%w: %s: its keys are read back after the statement, in a transaction, and %T cannot begin one", ErrUpsert, u.call(), stmt.ConnPool)
	}
	if err != nil {
		return nil, err
	}
	c, ok := tx.(gorm.TxCommitter)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %T cannot commit", ErrUpsert, u.call(), tx)
	}
	pool := stmt.ConnPool
	stmt.ConnPool = tx
	return func() {
		stmt.ConnPool = pool
		if db.Error != nil {
			_ = c.Rollback()
			return
		}
		if err := c.Commit(); err != nil {
			for _, e := range u.elems {
				u.setKey(e, once.ID{})
			}
			db.AddError(err)
		}
	}, nil
}
