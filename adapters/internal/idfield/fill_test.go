package idfield

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type fillKind struct{}

func (fillKind) Options() once.Options { return once.Options{Prefix: "fil_"} }

type fillID = once.Typed[fillKind]

type fillRow struct {
	ID     fillID
	Ref    *fillID
	Opt    sql.Null[fillID]
	Parent fillID
}

func setGenerator(t *testing.T) {
	t.Helper()
	f, err := nonce.New(nonce.Config{MachineID: 3})
	if err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
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
		if !ok {
			t.Fatalf("%s: not an ID field", name)
		}
		r, err := it.Fill(rv.FieldByName(name), shape)
		if err != nil {
			t.Fatalf("Fill %s: %v", name, err)
		}
		undo.Add(r)
	}
	if row.ID.IsZero() || row.Ref == nil || row.Ref.IsZero() || !row.Opt.Valid || row.Opt.V.IsZero() || row.Parent != parent {
		t.Fatalf("after Fill: %+v", row)
	}
	if row.ID == *row.Ref || row.ID == row.Opt.V {
		t.Fatalf("Fill drew one ID twice: %+v", row)
	}
	undo.Run()
	if !row.ID.IsZero() || row.Ref != nil || row.Opt.Valid || !row.Opt.V.IsZero() || row.Parent != parent {
		t.Fatalf("after Undo: %+v", row)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		undo = append(undo[:0], r)
		undo.Run()
	})
	if n != 0 {
		t.Fatalf("Fill allocates %v times per key", n)
	}
}
