package idfield

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type fillSpec struct{}

func (fillSpec) Options() once.Options { return once.Options{Prefix: "fil_"} }

type fillID = once.Typed[fillSpec]

type fillRow struct {
	ID     fillID
	Ref    *fillID
	Opt    sql.Null[fillID]
	Parent fillID
}

func setGenerator(t *testing.T) {
	t.Helper()
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 3})
	require.NoError(t, err)
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
}

// TestFillAndUndo: Fill sets zero IDs of each shape, keeps set ones, and
// Undo puts back exactly what Fill changed.
func TestFillAndUndo(t *testing.T) {
	setGenerator(t)
	parent := once.MustParseAs[fillID]("fil_AAAAAAAAAAE")
	row := fillRow{Parent: parent}
	rv := reflect.ValueOf(&row).Elem()
	var undo Undo
	for _, name := range []string{"ID", "Ref", "Opt", "Parent"} {
		it, shape, ok := Field(rv.FieldByName(name).Type())
		require.True(t, ok, "%s: not an ID field", name)
		r, err := it.Fill(rv.FieldByName(name), shape)
		require.NoError(t, err, "Fill %s", name)
		undo.Add(r)
	}
	require.False(t, row.ID.IsZero(), "after Fill: ID of %+v", row)
	require.NotNil(t, row.Ref, "after Fill: Ref")
	require.False(t, row.Ref.IsZero(), "after Fill: Ref of %+v", row)
	require.True(t, row.Opt.Valid, "after Fill: Opt of %+v", row)
	require.False(t, row.Opt.V.IsZero(), "after Fill: Opt of %+v", row)
	require.Equal(t, parent, row.Parent, "after Fill: Parent")
	require.NotEqual(t, row.ID, *row.Ref, "Fill drew one ID twice: %+v", row)
	require.NotEqual(t, row.ID, row.Opt.V, "Fill drew one ID twice: %+v", row)
	undo.Run()
	require.True(t, row.ID.IsZero(), "after Undo: ID of %+v", row)
	require.Nil(t, row.Ref, "after Undo: Ref")
	require.False(t, row.Opt.Valid, "after Undo: Opt of %+v", row)
	require.True(t, row.Opt.V.IsZero(), "after Undo: Opt of %+v", row)
	require.Equal(t, parent, row.Parent, "after Undo: Parent")
}

// TestFillAllocs pins the allocations of filling a key on an insert: none
// for the ID itself, none for the undo record beyond its slice.
func TestFillAllocs(t *testing.T) {
	setGenerator(t)
	var row fillRow
	v := reflect.ValueOf(&row).Elem().Field(0)
	it, shape, _ := Field(v.Type())
	undo := make(Undo, 0, 1)
	n := testing.AllocsPerRun(1000, func() {
		r, err := it.Fill(v, shape)
		require.NoError(t, err)
		undo = append(undo[:0], r)
		undo.Run()
	})
	require.Zero(t, n, "Fill allocations per key")
}
