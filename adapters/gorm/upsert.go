package oncegorm

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/adapters/internal/upsert"
	"github.com/once-go/once/once"
)

// ErrUpsert matches the errors of upserts whose keys cannot be read back:
// the call is refused before any SQL runs when the database cannot tell
// which rows were written, and fails (which rolls back GORM's transaction)
// when the keys it returned cannot be matched to the structs.
var ErrUpsert = errors.New("oncegorm: the keys of an upsert cannot be read back")

// An upsertStmt is a Create with ON CONFLICT or INSERT IGNORE on a model
// whose sole primary key is an ID: the row may not be inserted, so the key
// the adapter sent is not necessarily the row's.
type upsertStmt struct {
	db        *gorm.DB
	pk        *schema.Field
	id        *idfield.Type
	conflict  *clause.OnConflict // nil for INSERT IGNORE
	elems     []reflect.Value    // the structs, in statement order
	sent      []once.ID          // the keys they were sent with
	generated map[once.ID]bool   // the keys the plugin generated for them
}

// upsertOf returns the upsert db's statement makes, or nil for any other
// create.
func upsertOf(db *gorm.DB) *upsertStmt {
	stmt := db.Statement
	s := stmt.Schema
	if s == nil || len(s.PrimaryFields) != 1 || stmt.SQL.Len() > 0 {
		return nil
	}
	pk := s.PrimaryFields[0]
	it, shape, ok := idfield.Field(pk.StructField.Type)
	if !ok || shape != idfield.Plain {
		return nil
	}
	u := &upsertStmt{db: db, pk: pk, id: it}
	if c, ok := stmt.Clauses["ON CONFLICT"]; ok {
		if oc, ok := c.Expression.(clause.OnConflict); ok {
			u.conflict = &oc
		}
	}
	ignore := false
	if c, ok := stmt.Clauses["INSERT"]; ok {
		if in, ok := c.Expression.(clause.Insert); ok {
			ignore = strings.Contains(strings.ToUpper(in.Modifier), "IGNORE")
		}
	}
	if u.conflict == nil && !ignore {
		return nil
	}
	rv := reflect.Indirect(stmt.ReflectValue)
	switch rv.Kind() {
	case reflect.Struct:
		if !rv.CanAddr() {
			return nil // GORM reports it
		}
		u.elems = []reflect.Value{rv}
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			e := reflect.Indirect(rv.Index(i))
			if e.Kind() != reflect.Struct || !e.CanAddr() {
				return nil // GORM reports it
			}
			u.elems = append(u.elems, e)
		}
	default:
		return nil // maps: no struct to hold a key
	}
	for _, e := range u.elems {
		u.sent = append(u.sent, u.key(e))
	}
	u.generated = map[once.ID]bool{}
	if v, ok := db.InstanceGet(filledKey); ok {
		for _, f := range v.(idfield.Undo) {
			if f.Type() == it.Type {
				u.generated[f.Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID)] = true
			}
		}
	}
	return u
}

// call names the call in error messages.
func (u *upsertStmt) call() string {
	what := "ON CONFLICT"
	switch {
	case u.conflict == nil:
		what = "INSERT IGNORE"
	case u.db.Dialector.Name() == "mysql":
		what = "ON DUPLICATE KEY UPDATE"
	}
	return fmt.Sprintf("Create of %d %s with %s", len(u.elems), u.db.Statement.Schema.Name, what)
}

func (u *upsertStmt) key(e reflect.Value) once.ID {
	return reflect.ValueOf(u.pk.ReflectValueOf(u.db.Statement.Context, e).Interface()).Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID)
}

func (u *upsertStmt) setKey(e reflect.Value, id once.ID) {
	u.id.Set(u.pk.ReflectValueOf(u.db.Statement.Context, e), id)
}

// doNothing reports whether a conflict leaves the row alone.
func (u *upsertStmt) doNothing() bool {
	return u.conflict == nil || u.conflict.DoNothing || len(u.conflict.DoUpdates) == 0 && !u.conflict.UpdateAll
}

// create runs the upsert and leaves in each struct the key of the row it
// was written to, or the zero key when it was not written.
func (u *upsertStmt) create() {
	db, stmt := u.db, u.db.Statement
	returning := slices.Contains(stmt.BuildClauses, "RETURNING")
	// MySQL without RETURNING: one row with an integer key reads it back
	// with LAST_INSERT_ID; otherwise by key, and for rows that updated
	// another row, by the conflict columns, which must be named.
	lastInsertID := !returning && u.conflict != nil && !u.doNothing() && len(u.elems) == 1 &&
		(u.id.Options.DBFormat == 0 || u.id.Options.DBFormat == once.Signed || u.id.Options.DBFormat == once.Unsigned)
	readBack := !returning && !lastInsertID && !u.doNothing()
	if readBack {
		if err := u.checkReadBack(); err != nil {
			db.AddError(err)
			return
		}
		if !inTransaction(stmt.ConnPool) {
			// The keys are read back after the statement, and the table's
			// unique keys with them: both must see what the statement did
			// and the table it did it to (its metadata lock holds off an
			// ALTER TABLE until the transaction ends).
			end, err := u.begin()
			if err != nil {
				db.AddError(err)
				return
			}
			defer end()
		}
	}
	if !stmt.Unscoped {
		for _, c := range stmt.Schema.CreateClauses {
			stmt.AddClause(c)
		}
	}
	if returning {
		cols := []clause.Column{{Name: u.pk.DBName}}
		for _, f := range stmt.Schema.FieldsWithDefaultDBValue {
			if f.Readable && f != u.pk {
				cols = append(cols, clause.Column{Name: f.DBName})
			}
		}
		stmt.AddClause(clause.Returning{Columns: cols})
	}
	stmt.SQL.Grow(180)
	stmt.AddClauseIfNotExists(clause.Insert{})
	stmt.AddClause(callbacks.ConvertToCreateValues(stmt))
	if lastInsertID {
		// UpdateAll's assignments exist only now.
		c := stmt.Clauses["ON CONFLICT"]
		oc := c.Expression.(clause.OnConflict)
		pk := clause.Column{Name: u.pk.DBName}
		oc.DoUpdates = append(slices.Clone(oc.DoUpdates), clause.Assignment{Column: pk, Value: clause.Expr{SQL: lastInsertIDOf(u.id.Options.DBFormat), Vars: []any{pk}}})
		c.Expression = oc
		stmt.Clauses["ON CONFLICT"] = c
	}
	stmt.Build(stmt.BuildClauses...)
	if db.Error != nil {
		return
	}
	var err error
	if returning {
		err = u.queryReturning()
	} else {
		err = u.execMySQL(lastInsertID)
	}
	if err != nil {
		for _, e := range u.elems {
			u.setKey(e, once.ID{})
		}
		db.AddError(err)
	}
}

// queryReturning runs the statement with RETURNING and matches the keys
// it returns to the structs.
func (u *upsertStmt) queryReturning() error {
	db, stmt := u.db, u.db.Statement
	rows, err := stmt.ConnPool.QueryContext(stmt.Context, stmt.SQL.String(), stmt.Vars...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	fields := make([]*schema.Field, len(cols))
	pkAt := -1
	for i, c := range cols {
		if f := stmt.Schema.LookUpField(c); f != nil && f.Readable {
			fields[i] = f
			if f == u.pk {
				pkAt = i
			}
		}
	}
	if pkAt < 0 {
		return fmt.Errorf("%w: %s: RETURNING has no column %s", ErrUpsert, u.call(), u.pk.DBName)
	}
	var got []once.ID
	var values [][]any
	for rows.Next() {
		vs := make([]any, len(cols))
		for i, f := range fields {
			if f == nil || i == pkAt {
				vs[i] = new(any)
			} else {
				vs[i] = f.NewValuePool.Get()
			}
		}
		key := reflect.New(u.id.Type)
		vs[pkAt] = key.Interface()
		if err := rows.Scan(vs...); err != nil {
			return err
		}
		got = append(got, key.Elem().Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID))
		values = append(values, vs)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	db.RowsAffected = int64(len(got))
	at, err := upsert.Match(u.sent, got)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUpsert, u.call(), err)
	}
	for i, e := range u.elems {
		r := at[i]
		if r < 0 {
			continue
		}
		for c, f := range fields {
			if f == nil || c == pkAt {
				continue
			}
			if err := f.Set(stmt.Context, e, values[r][c]); err != nil {
				return err
			}
		}
		u.setKey(e, got[r])
	}
	return u.keepExisting(at)
}

// keepExisting resolves the structs whose rows returned no key (at[i] < 0):
// a struct keeps its key when a row has it (a key the caller set, of a row
// that exists), else it gets the zero key. Keys the plugin generated for
// this create are known to be no row's.
func (u *upsertStmt) keepExisting(at []int) error {
	var ask []once.ID
	for i, r := range at {
		if r < 0 && !u.generated[u.sent[i]] {
			ask = append(ask, u.sent[i])
		}
	}
	found := map[once.ID]bool{}
	if len(ask) > 0 {
		var err error
		if found, err = u.existing(ask); err != nil {
			return err
		}
	}
	for i, r := range at {
		if r < 0 && !found[u.sent[i]] {
			u.setKey(u.elems[i], once.ID{})
		}
	}
	return nil
}

// existing returns which of ids are keys of rows of the table.
func (u *upsertStmt) existing(ids []once.ID) (map[once.ID]bool, error) {
	vals := make([]any, len(ids))
	for i, id := range ids {
		v := reflect.New(u.id.Type).Elem()
		u.id.Set(v, id)
		vals[i] = v.Interface()
	}
	out := reflect.New(reflect.SliceOf(u.id.Type))
	stmt := u.db.Statement
	err := u.db.Session(&gorm.Session{NewDB: true}).Table(stmt.Table).
		Where(clause.IN{Column: clause.Column{Name: u.pk.DBName}, Values: vals}).
		Pluck(u.pk.DBName, out.Interface()).Error
	if err != nil {
		return nil, err
	}
	found := map[once.ID]bool{}
	for i := range out.Elem().Len() {
		found[out.Elem().Index(i).Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID)] = true
	}
	return found, nil
}

// execMySQL runs the statement where it cannot return keys and reads them
// back: with LAST_INSERT_ID for one row, else by key, and by the conflict
// columns for rows that updated another row.
func (u *upsertStmt) execMySQL(lastInsertID bool) error {
	db, stmt := u.db, u.db.Statement
	res, err := stmt.ConnPool.ExecContext(stmt.Context, stmt.SQL.String(), stmt.Vars...)
	if err != nil {
		return err
	}
	db.RowsAffected, _ = res.RowsAffected()
	if lastInsertID {
		return u.lastInsertID(res)
	}
	found, err := u.existing(u.sent)
	if err != nil {
		return err
	}
	checked := false
	for i, e := range u.elems {
		if found[u.sent[i]] {
			continue
		}
		if u.doNothing() {
			u.setKey(e, once.ID{})
			continue
		}
		// Written to another row: the one with its values in the
		// conflict columns, when they are the only unique key that can
		// have conflicted.
		cols := u.conflict.Columns
		if len(cols) == 0 {
			return fmt.Errorf("%w: %s: a row updated a row found by no primary key; name the unique key's columns in clause.OnConflict{Columns: ...}", ErrUpsert, u.call())
		}
		if !checked {
			if err := u.checkUniqueKeys(); err != nil {
				return err
			}
			checked = true
		}
		q := db.Session(&gorm.Session{NewDB: true}).Table(stmt.Table)
		for _, c := range cols {
			f := stmt.Schema.LookUpField(c.Name)
			if f == nil {
				return fmt.Errorf("%w: %s: conflict column %s is no field of %s", ErrUpsert, u.call(), c.Name, stmt.Schema.Name)
			}
			v, _ := f.ValueOf(stmt.Context, e)
			// = rather than clause.Eq, which makes a nil IS NULL: a NULL
			// conflicts with nothing, so it finds no row.
			q = q.Where(clause.Expr{SQL: "? = ?", Vars: []any{clause.Column{Name: f.DBName}, v}})
		}
		key := reflect.New(reflect.SliceOf(u.id.Type))
		if err := q.Pluck(u.pk.DBName, key.Interface()).Error; err != nil {
			return err
		}
		if key.Elem().Len() != 1 {
			return fmt.Errorf("%w: %s: %d rows match row %d by %v", ErrUpsert, u.call(), key.Elem().Len(), i, cols)
		}
		u.setKey(e, key.Elem().Index(0).Convert(reflect.TypeFor[once.ID]()).Interface().(once.ID))
	}
	return nil
}
