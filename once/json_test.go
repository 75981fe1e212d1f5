package once_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"testing"

	"github.com/once-go/once/once"
)

type quoteSpec struct{}

func (quoteSpec) Options() once.Options { return once.Options{Prefix: `q"\<_`} }

type signedPrefixed struct{}

func (signedPrefixed) Options() once.Options { return once.Options{Prefix: "n_", Format: once.Signed} }

func TestJSON(t *testing.T) {
	type model struct {
		ID    UserID                  `json:"id"`
		Org   OrgID                   `json:"org"`
		Plain once.ID                 `json:"plain"`
		Ptr   *UserID                 `json:"ptr"`
		Null  sql.Null[UserID]        `json:"null"`
		Num   once.Typed[signedSpec]  `json:"num"`
		Quote once.Typed[quoteSpec]   `json:"quote"`
		Many  map[UserID]once.ID      `json:"many"`
		Opt   *once.Typed[signedSpec] `json:"opt,omitempty"`
	}
	id := once.FromUint64(0x338f28264e079f31)
	m := model{ID: UserID(id), Org: OrgID(id), Plain: id, Num: once.Typed[signedSpec](once.FromInt64(-5)),
		Quote: once.Typed[quoteSpec](id), Many: map[UserID]once.ID{UserID(id): id}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"usr_M48oJk4HnzE","org":"org_6e7ig9ie0ufj2","plain":"M48oJk4HnzE","ptr":null,` +
		`"null":{"V":"","Valid":false},"num":"-5","quote":"q\"\\\u003c_M48oJk4HnzE",` +
		`"many":{"usr_M48oJk4HnzE":"M48oJk4HnzE"}}`
	if string(data) != want {
		t.Errorf("Marshal:\n got %s\nwant %s", data, want)
	}
	var back model
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != m.ID || back.Org != m.Org || back.Plain != m.Plain || back.Ptr != nil || back.Null.Valid ||
		back.Num != m.Num || back.Quote != m.Quote || back.Many[UserID(id)] != id {
		t.Errorf("round trip: %+v", back)
	}

	// Nullable fields set.
	u := UserID(id)
	m.Ptr, m.Null = &u, sql.Null[UserID]{V: u, Valid: true}
	data, _ = json.Marshal(m)
	back = model{}
	if err := json.Unmarshal(data, &back); err != nil || back.Ptr == nil || *back.Ptr != u || !back.Null.Valid || back.Null.V != u {
		t.Errorf("nullable round trip: %s -> %+v, %v", data, back, err)
	}

	// Numbers: only for unprefixed signed/unsigned types.
	if err := json.Unmarshal([]byte(`{"num":-5,"opt":-1}`), &back); err != nil ||
		back.Num.Int64() != -5 || back.Opt == nil || back.Opt.Int64() != -1 {
		t.Errorf("numbers: %+v, %v", back, err)
	}
	for _, bad := range []string{`{"num":1.5}`, `{"num":1e3}`, `{"num":18446744073709551616}`, `{"num":18446744073709551615}`, `{"num":-0}`, `{"num":0}`, `{"id":12}`,
		`{"plain":12}`, `{"plain":null}`, `{"id":null}`, `{"id":true}`, `{"id":{}}`, `{"id":"usr_\u0041AAAAAAAAAB"}`} {
		var m model
		err := json.Unmarshal([]byte(bad), &m)
		if !errors.Is(err, once.ErrInvalid) {
			t.Errorf("Unmarshal %s: %v", bad, err)
		}
	}
	var n once.Typed[signedPrefixed]
	if err := n.UnmarshalJSON([]byte(`5`)); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("number into prefixed signed: %v", err)
	}
	if err := n.UnmarshalJSON([]byte(`"n_5"`)); err != nil || n.Int64() != 5 {
		t.Errorf("prefixed signed: %v", err)
	}
	// Escapes in a JSON string are decoded.
	var p once.ID
	if err := json.Unmarshal([]byte(`"\u004d48oJk4HnzE"`), &p); err != nil || p != id {
		t.Errorf("escaped string: %v %v", p, err)
	}
	for _, bad := range []string{``, `"`, `"abc`, `x`} {
		if err := p.UnmarshalJSON([]byte(bad)); !errors.Is(err, once.ErrInvalid) {
			t.Errorf("UnmarshalJSON(%q) = %v", bad, err)
		}
	}
}

func TestText(t *testing.T) {
	id := once.FromUint64(0x338f28264e079f31)
	b, err := id.MarshalText()
	if err != nil || string(b) != "M48oJk4HnzE" {
		t.Errorf("MarshalText = %s, %v", b, err)
	}
	u := UserID(id)
	b, err = u.MarshalText()
	if err != nil || string(b) != "usr_M48oJk4HnzE" {
		t.Errorf("MarshalText = %s, %v", b, err)
	}
	var back UserID
	if err := back.UnmarshalText(b); err != nil || back != u {
		t.Errorf("UnmarshalText = %v, %v", back, err)
	}
	var p once.ID
	if err := p.UnmarshalText([]byte("338f28264e079f31")); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("UnmarshalText of hex into a url64 ID = %v, %v; want ErrInvalid", p, err)
	}
	b, _ = u.AppendText([]byte("id="))
	if string(b) != "id=usr_M48oJk4HnzE" {
		t.Errorf("AppendText = %s", b)
	}
}
