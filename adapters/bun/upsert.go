package oncebun

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/feature"
	"github.com/uptrace/bun/schema"

	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/adapters/internal/upsert"
	"github.com/once-go/once/once"
)

// ErrUpsert matches the errors of upserts whose keys cannot be read back;
// the insert is refused before any SQL runs.
var ErrUpsert = errors.New("oncebun: the keys of an upsert cannot be read back")

// keyHook is the query hook [Register] installs: after an upsert it leaves
// each struct the key of the row it was written to (bun has no other hook
// after a query that sees its result). It is not zero-size, so that its
// address is its own.
type keyHook struct{ _ byte }

var theKeyHook = &keyHook{}

// BeforeQuery implements bun.QueryHook.
func (*keyHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

// AfterQuery implements bun.QueryHook.
func (*keyHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	iq, ok := e.IQuery.(*bun.InsertQuery)
	if !ok {
		return
	}
	if s, ok := pending.LoadAndDelete(weak.Make(iq)); ok {
		s.(*upsertState).finish(ctx, iq, e)
	}
}

// pending holds the upserts between their model hook and their result,
// by query; an entry whose query never runs goes with the query.
var pending sync.Map // weak.Pointer[bun.InsertQuery] -> *upsertState

// How an upsert's keys are read back.
const (
	byReturning    = iota + 1 // RETURNING the key, matched in statement order
	byLastInsertID            // MySQL, one row: id = LAST_INSERT_ID(id)
	byKey                     // MySQL, INSERT IGNORE: the rows that have the keys sent
)

// upsertState is an upsert between its model hook and its result.
type upsertState struct {
	call   string // names the call in errors
	table  *schema.Table
	pk     *schema.Field
	id     *idfield.Type
	slice  reflect.Value // the query's slice model, or invalid
	n      int           // its length
	elems  []reflect.Value
	sent   []once.ID
	filled []bool // the key was generated here (no row has it yet)
	undo   idfield.Undo
	mode   int
}

// prepareUpsert sets up an insert that may not write its rows (ON
// CONFLICT, ON DUPLICATE KEY UPDATE, INSERT IGNORE) so that its keys are
// read back: RETURNING where the dialect has it, LAST_INSERT_ID or a
// lookup by key on MySQL. It refuses, before any SQL runs, an upsert whose
// keys cannot be told apart. elems are the structs in statement order;
// filled says which keys this insert generated.
func prepareUpsert(iq *bun.InsertQuery, table *schema.Table, elems []reflect.Value, filled []bool, undo idfield.Undo, p parts) error {
	if len(table.PKs) != 1 {
		return nil
	}
	pk := table.PKs[0]
	it, shape, ok := idfield.Field(pk.StructField.Type)
	if !ok || shape != idfield.Plain {
		return nil
	}
	db := iq.DB()
	s := &upsertState{table: table, pk: pk, id: it, elems: elems, filled: filled, undo: undo}
	if m := iq.GetModel(); m != nil {
		if w := reflect.ValueOf(m.Value()); w.Kind() == reflect.Pointer && !w.IsNil() && w.Elem().Kind() == reflect.Slice {
			s.slice, s.n = w.Elem(), w.Elem().Len()
		}
	}
	s.call = fmt.Sprintf("insert of %d %s with ON %s", len(elems), table.TypeName, p.on)
	if p.ignore {
		s.call = fmt.Sprintf("INSERT IGNORE of %d %s", len(elems), table.TypeName)
	}
	for _, e := range elems {
		s.sent = append(s.sent, s.key(e))
	}
	integer := it.Options.DBFormat == 0 || it.Options.DBFormat == once.Signed || it.Options.DBFormat == once.Unsigned
	switch {
	case db.HasFeature(feature.InsertReturning):
		if len(elems) > 1 && p.where > 0 {
			return fmt.Errorf("%w: %s and a WHERE: the rows it skips cannot be told from the rows it updates; upsert one row per statement", ErrUpsert, s.call)
		}
		iq.Returning("?", bun.Ident(pk.Name))
		s.mode = byReturning
	case !p.doUpdate():
		s.mode = byKey
	case len(elems) == 1 && integer:
		if len(p.set) == 0 && strings.EqualFold(strings.TrimSpace(p.on), "DUPLICATE KEY UPDATE") {
			// bun writes col = VALUES(col) for each column when no SET
			// is given; a SET replaces that list, so it is written here.
			for _, f := range updatedColumns(table, p) {
				iq.Set("? = VALUES(?)", bun.Ident(f.Name), bun.Ident(f.Name))
			}
		}
		sep := ""
		if len(p.set) == 0 && !strings.EqualFold(strings.TrimSpace(p.on), "DUPLICATE KEY UPDATE") {
			sep = ", " // assignments written in the ON text itself
		}
		// LAST_INSERT_ID is unsigned: a signed key takes it back as
		// signed (the same 64 bits), since a negative key would be out of
		// range, refused in strict SQL modes and clipped, moving the row
		// to another key, in the others.
		value := "CAST(LAST_INSERT_ID(?) AS SIGNED)"
		if it.Options.DBFormat == once.Unsigned {
			value = "LAST_INSERT_ID(?)"
		}
		iq.Set(sep+"? = "+value, bun.Ident(pk.Name), bun.Ident(pk.Name))
		s.mode = byLastInsertID
	default:
		return fmt.Errorf("%w: %s: %s returns no keys and bun names no conflict columns; upsert one row per statement (integer keys only)",
			ErrUpsert, s.call, db.Dialect().Name())
	}
	if !hasHook(db, theKeyHook) {
		return configError("%s: db does not run the adapter's query hook (ResetQueryHooks removes it): call oncebun.Register(db, ...) again", s.call)
	}
	wk := weak.Make(iq)
	pending.Store(wk, s)
	runtime.AddCleanup(iq, func(k weak.Pointer[bun.InsertQuery]) { pending.Delete(k) }, wk)
	return nil
}

// updatedColumns are the columns bun's ON DUPLICATE KEY UPDATE sets when
// given no SET: the query's columns, or the table's, without the key.
func updatedColumns(table *schema.Table, p parts) []*schema.Field {
	if len(p.columns) == 0 {
		return table.DataFields
	}
	var fs []*schema.Field
	for _, c := range p.columns {
		if f, ok := table.FieldMap[c]; ok && !f.IsPK {
			fs = append(fs, f)
		}
	}
	return fs
}

func (s *upsertState) key(e reflect.Value) once.ID {
	return s.pk.Value(e).Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID)
}

func (s *upsertState) setKey(e reflect.Value, id once.ID) { s.id.Set(s.pk.Value(e), id) }

// finish reads the keys back after the statement ran. Nothing here can
// fail the call (bun's hook returns no error): when a key cannot be
// established the struct gets the zero key, never a guess.
func (s *upsertState) finish(ctx context.Context, iq *bun.InsertQuery, e *bun.QueryEvent) {
	if e.Err != nil || e.Result == nil {
		s.undo.Run()
		return
	}
	switch s.mode {
	case byReturning:
		// bun scanned the returned keys into the structs in order, after
		// setting the slice's length to the number of rows returned.
		if s.slice.IsValid() && s.slice.Len() < s.n && s.n <= s.slice.Cap() {
			s.slice.SetLen(s.n)
		}
		n, _ := e.Result.RowsAffected()
		got := make([]once.ID, 0, n)
		for i := 0; i < int(n) && i < len(s.elems); i++ {
			got = append(got, s.key(s.elems[i]))
		}
		at, err := upsert.Match(s.sent, got)
		if err != nil {
			s.zero()
			return
		}
		for i, r := range at {
			if r >= 0 {
				s.setKey(s.elems[i], got[r])
			} else {
				s.setKey(s.elems[i], once.ID{})
			}
		}
		s.keepExisting(ctx, iq, at)
	case byLastInsertID:
		s.lastInsertID(ctx, iq, e.Result)
	case byKey:
		if n, err := e.Result.RowsAffected(); err == nil && int(n) == len(s.elems) {
			return // every row inserted
		}
		at := make([]int, len(s.elems))
		for i := range at {
			at[i] = -1
			s.filled[i] = false // a generated key may or may not have been inserted
			s.setKey(s.elems[i], once.ID{})
		}
		s.keepExisting(ctx, iq, at)
	}
}

// keepExisting gives back their keys to the structs whose rows returned
// none (at[i] < 0) when a row has that key: a key the caller set, of a row
// that exists. Keys generated here are left zero without asking.
func (s *upsertState) keepExisting(ctx context.Context, iq *bun.InsertQuery, at []int) {
	var ask []once.ID
	for i, r := range at {
		if r < 0 && !s.filled[i] {
			ask = append(ask, s.sent[i])
		}
	}
	if len(ask) == 0 {
		return
	}
	exists, ok := s.existing(ctx, iq, ask)
	if !ok {
		return // the keys stay zero
	}
	for i, r := range at {
		if r < 0 && exists[s.sent[i]] {
			s.setKey(s.elems[i], s.sent[i])
		}
	}
}

// existing returns which of ids are keys of rows of the table, asking on
// the query's connection; ok is false when it cannot tell.
func (s *upsertState) existing(ctx context.Context, iq *bun.InsertQuery, ids []once.ID) (exists map[once.ID]bool, ok bool) {
	ask := make([]any, len(ids))
	for i, id := range ids {
		v := reflect.New(s.id.Type).Elem()
		s.id.Set(v, id)
		ask[i] = v.Interface()
	}
	rows, err := iq.DB().NewSelect().Conn(connOf(iq, iq.DB())).TableExpr("?", s.table.SQLName).
		ColumnExpr("?", bun.Ident(s.pk.Name)).Where("? IN (?)", bun.Ident(s.pk.Name), bun.List(ask)).
		Rows(ctx)
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	exists = map[once.ID]bool{}
	for rows.Next() {
		v := reflect.New(s.id.Type)
		if rows.Scan(v.Interface()) != nil {
			return nil, false
		}
		exists[v.Elem().Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID)] = true
	}
	if rows.Err() != nil {
		return nil, false
	}
	return exists, true
}

// lastInsertID sets the struct of a one-row upsert whose update assigns
// id = LAST_INSERT_ID(id) from the statement's result. An update sets the
// insert ID to the key of the row it updated; an insert leaves it 0, or
// sets it to the new value of an AUTO_INCREMENT column. Affected rows tell
// them apart: 1 for an insert, 2 for an update, 0 for an update that
// changed nothing, except with the client flag CLIENT_FOUND_ROWS
// (clientFoundRows=true), under which the latter is 1 too; then the keys
// themselves answer.
func (s *upsertState) lastInsertID(ctx context.Context, iq *bun.InsertQuery, res sql.Result) {
	id, err := res.LastInsertId()
	if err != nil {
		s.zero()
		return
	}
	if id == 0 {
		return // inserted under the key it was sent with
	}
	got := once.FromInt64(id)
	n, err := res.RowsAffected()
	if err != nil {
		s.zero()
		return
	}
	if n == 1 && got != s.sent[0] {
		exists, ok := s.existing(ctx, iq, []once.ID{s.sent[0], got})
		switch {
		case !ok || !exists[s.sent[0]] && !exists[got]:
			s.zero()
			return
		case exists[s.sent[0]]:
			return // inserted; the insert ID is an AUTO_INCREMENT column's
		}
	}
	s.setKey(s.elems[0], got)
}

// zero leaves every struct the zero key.
func (s *upsertState) zero() {
	for _, e := range s.elems {
		s.setKey(e, once.ID{})
	}
}
