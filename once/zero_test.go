package once_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"testing"

	"github.com/once-go/once/once"
)

// TestZeroSpelling: the zero ID ("no ID") is "" in text and JSON, for plain,
// prefixed and masked types (a masked zero needs no generator), and no
// non-empty spelling parses to it.
func TestZeroSpelling(t *testing.T) {
	check := func(name string, text []byte, err error) {
		t.Helper()
		if err != nil || text == nil || len(text) != 0 {
			t.Errorf("%s of the zero ID = %q (nil %v), %v; want empty", name, text, text == nil, err)
		}
	}
	for _, m := range []interface {
		MarshalText() ([]byte, error)
		MarshalJSON() ([]byte, error)
		AppendText([]byte) ([]byte, error)
		String() string
	}{once.ID{}, UserID{}, OrgID{}, MaskedID{}, once.Typed[signedSpec]{}} {
		b, err := m.MarshalText()
		check("MarshalText", b, err)
		b, err = m.AppendText([]byte{})
		check("AppendText", b, err)
		if j, err := m.MarshalJSON(); string(j) != `""` || err != nil {
			t.Errorf("%T: MarshalJSON = %s, %v; want \"\"", m, j, err)
		}
		if s := m.String(); s != "" {
			t.Errorf("%T: String = %q, want \"\"", m, s)
		}
	}
	data, err := json.Marshal(struct {
		ID   UserID           `json:"id"`
		Null sql.Null[UserID] `json:"null"`
	}{})
	if want := `{"id":"","null":{"V":"","Valid":false}}`; string(data) != want || err != nil {
		t.Errorf("json.Marshal = %s, %v; want %s", data, err, want)
	}

	// "" decodes to the zero ID in text and JSON.
	u := UserID(once.FromUint64(7))
	if err := u.UnmarshalText(nil); err != nil || !u.IsZero() {
		t.Errorf(`UnmarshalText("") = %v, %v`, u.Uint64(), err)
	}
	u = UserID(once.FromUint64(7))
	if err := json.Unmarshal([]byte(`""`), &u); err != nil || !u.IsZero() {
		t.Errorf(`json.Unmarshal("") = %v, %v`, u.Uint64(), err)
	}
	// The parsers reject "" and every non-empty spelling of 0.
	for _, s := range []string{"", "usr_", "usr_AAAAAAAAAAA"} {
		if _, err := once.ParseAs[UserID](s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ParseAs[UserID](%q) err = %v, want ErrInvalid", s, err)
		}
	}
	for _, s := range []string{"", "AAAAAAAAAAA"} {
		if _, err := once.Parse(s); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("Parse(%q) err = %v, want ErrInvalid", s, err)
		}
	}
	var id once.ID
	for _, s := range []string{"AAAAAAAAAAA", `"AAAAAAAAAAA"`} {
		err := id.UnmarshalText([]byte(s))
		if s[0] == '"' {
			err = id.UnmarshalJSON([]byte(s))
		}
		if !errors.Is(err, once.ErrInvalid) {
			t.Errorf("unmarshal %s err = %v, want ErrInvalid", s, err)
		}
	}
	var n once.Typed[signedSpec]
	for _, s := range []string{`0`, `"0"`, `"-0"`} {
		if err := n.UnmarshalJSON([]byte(s)); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("signed UnmarshalJSON(%s) err = %v, want ErrInvalid", s, err)
		}
	}
}

// TestZeroDatabase: the zero ID has no database value (an insert with an
// unfilled key fails instead of storing 0 or NULL), and a stored 0 does not
// scan as an ID.
func TestZeroDatabase(t *testing.T) {
	values := map[string]func() (any, error){
		"ID":       func() (any, error) { return once.ID{}.Value() },
		"UserID":   func() (any, error) { return UserID{}.Value() },
		"unsigned": func() (any, error) { return once.Typed[unsignedDB]{}.Value() },
		"hex text": func() (any, error) { return once.Typed[hexDBSpec]{}.Value() },
	}
	for name, f := range values {
		if v, err := f(); !errors.Is(err, once.ErrInvalid) || v != nil {
			t.Errorf("%s: Value of the zero ID = %#v, %v; want nil, ErrInvalid", name, v, err)
		}
	}
	// Nullable forms still give NULL without asking the ID.
	if v, err := (sql.Null[UserID]{}).Value(); v != nil || err != nil {
		t.Errorf("sql.Null[UserID]{}.Value() = %#v, %v", v, err)
	}
	var id once.ID
	var u UserID
	var h once.Typed[hexDBSpec]
	for _, src := range []any{int64(0), []byte("0"), "0"} {
		if err := id.Scan(src); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("ID.Scan(%#v) err = %v", src, err)
		}
		if err := u.Scan(src); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("UserID.Scan(%#v) err = %v", src, err)
		}
	}
	if err := h.Scan("usr_0000000000000000"); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("hex Scan of 0 err = %v", err)
	}
}
