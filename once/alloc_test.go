package once_test

import (
	"testing"

	"github.com/once-go/once/once"
)

func TestAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	speckBinding.Set(keyFactory(t, testBaseKey, 2 /* nonce.Speck */))
	const v = 0x338f28264e079f31
	id := once.FromUint64(v)
	u := UserID(id)
	m := SpeckID(id)
	ms := m.String()
	buf := make([]byte, 0, 64)
	j := []byte(`"usr_M48oJk4HnzE"`)
	hexID := once.Typed[hexDBSpec](id)
	hexSrc := []byte("usr_338f28264e079f31")
	var src any = int64(v)

	cases := []struct {
		name string
		want float64
		f    func()
	}{
		{"Parse", 0, func() { _, _ = once.Parse("M48oJk4HnzE") }},
		{"ParseAs prefixed", 0, func() { _, _ = once.ParseAs[UserID]("usr_M48oJk4HnzE") }},
		{"ParseAs masked", 0, func() { _, _ = once.ParseAs[SpeckID](ms) }},
		{"AppendText plain", 0, func() { buf, _ = id.AppendText(buf[:0]) }},
		{"AppendText prefixed", 0, func() { buf, _ = u.AppendText(buf[:0]) }},
		{"AppendText masked", 0, func() { buf, _ = m.AppendText(buf[:0]) }},
		{"UnmarshalText", 0, func() { _ = u.UnmarshalText(j[1 : len(j)-1]) }},
		{"UnmarshalJSON", 0, func() { _ = u.UnmarshalJSON(j) }},
		{"Scan int64 plain", 0, func() { _ = id.Scan(src) }},
		{"Scan int64 typed", 0, func() { _ = u.Scan(src) }},
		{"Scan text persisted", 0, func() { _ = hexID.Scan(hexSrc) }},
		{"Value plain", 0, func() {
			if v, err := id.Value(); v == nil || err != nil {
				t.Fatal("Value failed")
			}
		}},
		// Boxing the int64 into driver.Value costs 8 B for values >= 256
		// unless the call inlines into a caller that keeps the result on
		// its stack: ID.Value does; Typed.Value (a lookup and a call) does
		// not. database/sql boxes every int64 argument the same way.
		{"Value typed", 1, func() {
			if v, err := u.Value(); v == nil || err != nil {
				t.Fatal("Value failed")
			}
		}},
		{"String plain", 1, func() { _ = id.String() }},
		{"String prefixed", 1, func() { _ = u.String() }},
		{"String masked", 1, func() { _ = m.String() }},
		{"MarshalJSON plain", 1, func() { _, _ = id.MarshalJSON() }},
		{"MarshalJSON prefixed", 1, func() { _, _ = u.MarshalJSON() }},
		{"MarshalText prefixed", 1, func() { _, _ = u.MarshalText() }},
	}
	for _, c := range cases {
		if got := testing.AllocsPerRun(100, c.f); got != c.want {
			t.Errorf("%s: %v allocs, want %v", c.name, got, c.want)
		}
	}
}
