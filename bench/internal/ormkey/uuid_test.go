package ormkey

import (
	"testing"

	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"
)

func TestUUIDForms(t *testing.T) {
	u := NewV7()
	if u.IsZero() || u[6]>>4 != 7 {
		t.Fatalf("NewV7 = %s: not a version-7 UUID", u)
	}
	v, err := u.Value()
	if b, ok := v.([]byte); err != nil || !ok || string(b) != string(u[:]) {
		t.Fatalf("Value = %v, %v; want the 16 bytes", v, err)
	}
	for _, src := range []any{u[:], u.String(), []byte(u.String()), [16]byte(u)} {
		var got UUID
		if err := got.Scan(src); err != nil || got != u {
			t.Errorf("Scan(%T) = %s, %v; want %s", src, got, err, u)
		}
	}
	for _, bad := range []any{nil, "nope", []byte{1, 2, 3}, 42} {
		var got UUID
		if err := got.Scan(bad); err == nil {
			t.Errorf("Scan(%#v) accepted", bad)
		}
	}
	u = UUID{0x01, 0x9a, 15: 0xff}
	for _, c := range []struct {
		d    schema.Dialect
		want string
	}{
		{pgdialect.New(), "'019a00000000000000000000000000ff'"},
		{mysqldialect.New(), "X'019a00000000000000000000000000ff'"},
	} {
		b, err := u.AppendQuery(schema.NewQueryGen(c.d), nil)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: AppendQuery = %s, %v; want %s", c.d.Name(), b, err, c.want)
		}
	}
}
