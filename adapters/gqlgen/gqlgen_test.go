package oncegql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	oncegql "github.com/once-go/once/adapters/gqlgen"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type userKind struct{}

func (userKind) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userKind]

type quoteKind struct{}

func (quoteKind) Options() once.Options { return once.Options{Prefix: `q"\_`, Format: once.Signed} }

type maskedKind struct{}

var binding once.Binding

func (maskedKind) Options() once.Options {
	return once.Options{Prefix: "m_", Mask: true, Generator: &binding}
}

type rawKind struct{}

func (rawKind) Options() once.Options { return once.Options{Format: once.Raw} }

func marshal[T once.IDType](id T) (string, error) {
	var b bytes.Buffer
	err := oncegql.Marshal(id).MarshalGQLContext(context.Background(), &b)
	return b.String(), err
}

// TestMarshal: the text spelling as a JSON string (a prefix with a quote
// and a backslash escaped); errors for the zero ID, a masked type without
// a generator and invalid options.
func TestMarshal(t *testing.T) {
	id := UserID(once.FromUint64(14702248913163780097))
	if got, err := marshal(id); err != nil || got != `"usr_zAjhfZyAAAE"` {
		t.Errorf("Marshal = %s, %v", got, err)
	}
	q := once.Typed[quoteKind](once.FromUint64(1 << 63))
	got, err := marshal(q)
	var s string
	if err != nil || json.Unmarshal([]byte(got), &s) != nil || s != q.String() {
		t.Errorf("Marshal of %q = %s, %v", q.String(), got, err)
	}
	if got, err := marshal(UserID{}); !errors.Is(err, once.ErrInvalid) || got != "" {
		t.Errorf("Marshal of the zero ID = %q, %v; want ErrInvalid", got, err)
	}
	if _, err := marshal(once.Typed[maskedKind](once.FromUint64(1))); !errors.Is(err, once.ErrNoGenerator) {
		t.Errorf("Marshal of a masked ID without a generator: %v", err)
	}
	if _, err := marshal(once.Typed[rawKind](once.FromUint64(1))); !errors.Is(err, once.ErrConfig) {
		t.Errorf("Marshal of a raw-format ID: %v", err)
	}
}

// TestUnmarshal: a canonical string parses; a wrong prefix, non-canonical
// spellings, "", and values that are not strings are errors matching
// once.ErrInvalid.
func TestUnmarshal(t *testing.T) {
	ctx := context.Background()
	if id, err := oncegql.Unmarshal[UserID](ctx, "usr_zAjhfZyAAAE"); err != nil || id.Uint64() != 14702248913163780097 {
		t.Errorf("Unmarshal = %v, %v", id, err)
	}
	for _, v := range []any{"org_zAjhfZyAAAE", "usr_zAjhfZyAAAB", "usr_AAAAAAAAAAA", "USR_zAjhfZyAAAE", "usr_zAjhfZyAAAE ", "", "usr_",
		nil, int64(5), 5.0, json.Number("5"), true, []any{"usr_zAjhfZyAAAE"}, map[string]any{"id": "usr_zAjhfZyAAAE"}} {
		id, err := oncegql.Unmarshal[UserID](ctx, v)
		if !errors.Is(err, once.ErrInvalid) || !id.IsZero() {
			t.Errorf("Unmarshal(%#v) = %v, %v; want ErrInvalid", v, id, err)
		}
	}
	if _, err := oncegql.Unmarshal[once.Typed[rawKind]](ctx, "AAAAAAAAAAE"); !errors.Is(err, once.ErrConfig) {
		t.Errorf("Unmarshal into a raw-format type: %v", err)
	}
}

// TestMasked: with a generator bound, a masked ID round-trips.
func TestMasked(t *testing.T) {
	f, err := nonce.New(nonce.Config{BaseKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	binding.Set(f)
	defer binding.Set(nil)
	id := once.Typed[maskedKind](once.FromUint64(7))
	got, err := marshal(id)
	if err != nil || got == `"m_AAAAAAAAAAc"` {
		t.Fatalf("Marshal = %s, %v", got, err)
	}
	s, _ := strconv.Unquote(got)
	if back, err := oncegql.Unmarshal[once.Typed[maskedKind]](context.Background(), s); err != nil || back != id {
		t.Errorf("Unmarshal(%s) = %v, %v", got, back, err)
	}
}

// FuzzUnmarshal: any string either parses as ParseAs does and marshals back
// to itself, or is an ErrInvalid error; never a panic.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{"usr_zAjhfZyAAAE", "usr_zAjhfZyAAAB", "usr_", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := oncegql.Unmarshal[UserID](context.Background(), s)
		want, werr := once.ParseAs[UserID](s)
		if id != want || (err == nil) != (werr == nil) {
			t.Fatalf("Unmarshal(%q) = %v, %v; ParseAs = %v, %v", s, id, err, want, werr)
		}
		if err != nil {
			if !errors.Is(err, once.ErrInvalid) {
				t.Fatalf("Unmarshal(%q): %v", s, err)
			}
			return
		}
		got, err := marshal(id)
		if err != nil || got != strconv.Quote(s) {
			t.Fatalf("Marshal(Unmarshal(%q)) = %s, %v", s, got, err)
		}
	})
}

var _ graphql.ContextMarshaler = oncegql.Marshal(UserID{})
