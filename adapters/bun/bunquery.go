package oncebun

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/uptrace/bun"
)

// bun keeps the parts of a query that decide what it writes (the ON
// clause, IGNORE, the columns, SET expressions) unexported, and calls
// model hooks before it builds the SQL: the adapter reads those parts here,
// by reflection, and nowhere else. TestQueryParts fails when a bun release
// moves them; [parts] then reports ok false and the adapter refuses the
// query instead of guessing.

// queryArgs is a bun schema.QueryWithArgs as read by reflection.
type queryArgs struct {
	query string
	args  []reflect.Value // each a non-interface value (nil arguments left out)
}

// parts is what the adapter needs of an insert or update query.
type parts struct {
	ok        bool
	on        string          // InsertQuery.On text ("" when none)
	ignore    bool            // InsertQuery.Ignore on MySQL (INSERT IGNORE)
	where     int             // the number of WHERE conditions (of ON CONFLICT for an insert)
	set       []queryArgs     // SET expressions with their arguments
	columns   []string        // Column names given to the query
	omitZero  bool            // UpdateQuery.OmitZero
	valueCols map[string]bool // columns given a value by Value(column, expr)
}

// fieldPaths are the index paths of the unexported fields partsOf reads,
// per query type (nil when one is missing or of another kind).
var fieldPaths sync.Map // reflect.Type -> map[string][]int

// pathsOf returns the index paths of the named fields of struct type t,
// each of the given kind, or nil.
func pathsOf(t reflect.Type, kinds map[string]reflect.Kind) map[string][]int {
	if v, ok := fieldPaths.Load(t); ok {
		return v.(map[string][]int)
	}
	paths := map[string][]int{}
	for name, kind := range kinds {
		f, ok := t.FieldByName(name)
		if !ok || f.Type.Kind() != kind {
			paths = nil
			break
		}
		paths[name] = f.Index
	}
	v, _ := fieldPaths.LoadOrStore(t, paths)
	return v.(map[string][]int)
}

var (
	insertFields = map[string]reflect.Kind{"columns": reflect.Slice, "where": reflect.Slice, "set": reflect.Slice,
		"modelValues": reflect.Map, "on": reflect.Struct, "ignore": reflect.Bool}
	updateFields = map[string]reflect.Kind{"columns": reflect.Slice, "where": reflect.Slice, "set": reflect.Slice,
		"modelValues": reflect.Map, "omitZero": reflect.Bool}
)

// partsOf reads the parts of q, a *bun.InsertQuery or *bun.UpdateQuery.
func partsOf(q bun.Query) (p parts) {
	defer func() {
		if recover() != nil { // a field of another shape than expected
			p = parts{}
		}
	}()
	v := reflect.ValueOf(q)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return parts{}
	}
	var kinds map[string]reflect.Kind
	switch q.(type) {
	case *bun.InsertQuery:
		kinds = insertFields
	case *bun.UpdateQuery:
		kinds = updateFields
	default:
		return parts{}
	}
	v = v.Elem()
	paths := pathsOf(v.Type(), kinds)
	if paths == nil {
		return parts{}
	}
	field := func(name string) reflect.Value { return v.FieldByIndex(paths[name]) }
	columns := field("columns")
	for i := range columns.Len() {
		p.columns = append(p.columns, queryArgsOf(columns.Index(i)).query)
	}
	p.where = field("where").Len()
	set := field("set")
	for i := range set.Len() {
		p.set = append(p.set, queryArgsOf(set.Index(i)))
	}
	if values := field("modelValues"); values.Len() > 0 {
		p.valueCols = map[string]bool{}
		for _, k := range values.MapKeys() {
			p.valueCols[k.String()] = true
		}
	}
	if _, ok := kinds["on"]; ok {
		p.on, p.ignore = queryArgsOf(field("on")).query, field("ignore").Bool()
	} else {
		p.omitZero = field("omitZero").Bool()
	}
	p.ok = true
	return p
}

// queryArgsOf reads a schema.QueryWithArgs.
func queryArgsOf(v reflect.Value) queryArgs {
	qa := queryArgs{query: v.FieldByName("Query").String()}
	args := v.FieldByName("Args")
	for i := range args.Len() {
		a := args.Index(i)
		for a.Kind() == reflect.Interface && !a.IsNil() {
			a = a.Elem()
		}
		if a.Kind() != reflect.Interface {
			qa.args = append(qa.args, a)
		}
	}
	return qa
}

// upsert reports whether an insert may leave a row unwritten or write it
// to an existing row: ON CONFLICT / ON DUPLICATE KEY UPDATE, INSERT IGNORE.
func (p parts) upsert() bool { return p.on != "" || p.ignore }

// doUpdate reports whether a conflict updates the existing row.
func (p parts) doUpdate() bool {
	on := strings.ToUpper(p.on)
	return strings.Contains(on, " UPDATE") || strings.HasPrefix(on, "DUPLICATE")
}

// connOf returns the connection q runs on: its transaction or connection
// when it has one, else db, its database.
func connOf(q bun.Query, db *bun.DB) bun.IConn {
	defer func() { recover() }()
	v := reflect.ValueOf(q).Elem().FieldByName("conn")
	if v.IsValid() && v.Kind() == reflect.Interface && v.CanAddr() && !v.IsNil() {
		if c, ok := reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface().(bun.IConn); ok {
			return c
		}
	}
	return db
}

// hasHook reports whether db runs h (bun keeps its query hooks
// unexported; ResetQueryHooks removes them all).
func hasHook(db *bun.DB, h bun.QueryHook) (has bool) {
	defer func() {
		if recover() != nil {
			has = false
		}
	}()
	hooks := reflect.ValueOf(db).Elem().FieldByName("queryHooks")
	want := reflect.ValueOf(h).Pointer()
	for i := range hooks.Len() {
		if e := hooks.Index(i).Elem(); e.Kind() == reflect.Pointer && e.Pointer() == want {
			return true
		}
	}
	return false
}
