package oncebun

import (
	"reflect"

	"github.com/uptrace/bun/schema"

	"github.com/once-go/once/adapters/internal/configerr"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// checkWrite fails an insert or update that would write the zero ID (see
// [idfield.Unset]): bun formats arguments into the SQL text and writes a
// Valuer's error there, so the database would answer with a syntax error
// instead. It checks the columns the query writes in each struct of elems
// and the arguments of its SET expressions.
func checkWrite(table *schema.Table, elems []reflect.Value, p parts, insert bool) error {
	fields := table.Fields
	if !insert {
		fields = table.DataFields
	}
	if len(p.columns) > 0 {
		fields = nil
		for _, c := range p.columns {
			if f, ok := table.FieldMap[c]; ok {
				fields = append(fields, f)
			}
		}
	}
	for _, f := range fields {
		_, shape, ok := idfield.Field(f.StructField.Type)
		if !ok || p.valueCols[f.Name] {
			continue
		}
		for _, e := range elems {
			if !idfield.Unset(f.Value(e), shape) {
				continue
			}
			if (f.NullZero || f.SQLDefault != "" || !insert && p.omitZero) && f.HasZeroValue(e) {
				continue // bun writes NULL or DEFAULT, or leaves the column alone
			}
			return idfield.UnsetError("oncebun", table.TypeName, f.GoName, shape)
		}
	}
	for _, s := range p.set {
		for _, a := range s.args {
			if _, shape, ok := idfield.Field(a.Type()); ok && idfield.Unset(a, shape) {
				return configerr.New(once.ErrInvalid, "oncebun",
					"%s: SET %.60q gets the zero ID, which has no database value", table.TypeName, s.query)
			}
		}
	}
	return nil
}
