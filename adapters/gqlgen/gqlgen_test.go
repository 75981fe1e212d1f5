package oncegql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncegql "github.com/once-go/once/adapters/gqlgen"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_"} }

type UserID = once.Typed[userSpec]

type quoteSpec struct{}

func (quoteSpec) Options() once.Options { return once.Options{Prefix: `q"\_`, Format: once.Signed} }

type maskedSpec struct{}

var binding once.Binding

func (maskedSpec) Options() once.Options {
	return once.Options{Prefix: "m_", Mask: true, Generator: &binding}
}

type rawSpec struct{}

func (rawSpec) Options() once.Options { return once.Options{Format: once.Raw} }

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
	got, err := marshal(id)
	assert.NoError(t, err, "Marshal")
	assert.Equal(t, `"usr_zAjhfZyAAAE"`, got, "Marshal")
	q := once.Typed[quoteSpec](once.FromUint64(1 << 63))
	got, err = marshal(q)
	assert.NoError(t, err, "Marshal of %q", q.String())
	var s string
	if assert.NoError(t, json.Unmarshal([]byte(got), &s), "Marshal of %q = %s: not a JSON string", q.String(), got) {
		assert.Equal(t, q.String(), s, "Marshal of %q = %s", q.String(), got)
	}
	got, err = marshal(UserID{})
	assert.ErrorIs(t, err, once.ErrInvalid, "Marshal of the zero ID")
	assert.Empty(t, got, "Marshal of the zero ID")
	_, err = marshal(once.Typed[maskedSpec](once.FromUint64(1)))
	assert.ErrorIs(t, err, once.ErrNoGenerator, "Marshal of a masked ID without a generator")
	_, err = marshal(once.Typed[rawSpec](once.FromUint64(1)))
	assert.ErrorIs(t, err, once.ErrConfig, "Marshal of a raw-format ID")
}

// TestUnmarshal: a canonical string parses; a wrong prefix, non-canonical
// spellings, "", and values that are not strings are errors matching
// once.ErrInvalid.
func TestUnmarshal(t *testing.T) {
	ctx := context.Background()
	id, err := oncegql.Unmarshal[UserID](ctx, "usr_zAjhfZyAAAE")
	assert.NoError(t, err, "Unmarshal")
	assert.Equal(t, uint64(14702248913163780097), id.Uint64(), "Unmarshal = %v", id)
	for _, v := range []any{"org_zAjhfZyAAAE", "usr_zAjhfZyAAAB", "usr_AAAAAAAAAAA", "USR_zAjhfZyAAAE", "usr_zAjhfZyAAAE ", "", "usr_",
		nil, int64(5), 5.0, json.Number("5"), true, []any{"usr_zAjhfZyAAAE"}, map[string]any{"id": "usr_zAjhfZyAAAE"}} {
		id, err := oncegql.Unmarshal[UserID](ctx, v)
		assert.ErrorIs(t, err, once.ErrInvalid, "Unmarshal(%#v) = %v", v, id)
		assert.True(t, id.IsZero(), "Unmarshal(%#v) = %v, %v; want the zero ID", v, id, err)
	}
	_, err = oncegql.Unmarshal[once.Typed[rawSpec]](ctx, "AAAAAAAAAAE")
	assert.ErrorIs(t, err, once.ErrConfig, "Unmarshal into a raw-format type")
}

// TestMasked: with a generator bound, a masked ID round-trips.
func TestMasked(t *testing.T) {
	f, err := nonce.New(nonce.Config{Fixed: true, BaseKey: []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	binding.Set(f)
	defer binding.Set(nil)
	id := once.Typed[maskedSpec](once.FromUint64(7))
	got, err := marshal(id)
	require.NoError(t, err, "Marshal")
	require.NotEqual(t, `"m_AAAAAAAAAAc"`, got, "Marshal: the ID is not masked")
	s, _ := strconv.Unquote(got)
	back, err := oncegql.Unmarshal[once.Typed[maskedSpec]](context.Background(), s)
	assert.NoError(t, err, "Unmarshal(%s)", got)
	assert.Equal(t, id, back, "Unmarshal(%s) = %v, want %v", got, back, id)
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
		assert.Equal(t, want, id, "Unmarshal(%q) = %v, %v; ParseAs = %v, %v", s, id, err, want, werr)
		assert.Equal(t, werr != nil, err != nil, "Unmarshal(%q) = %v, %v; ParseAs = %v, %v: failed or not", s, id, err, want, werr)
		if err != nil {
			assert.ErrorIs(t, err, once.ErrInvalid, "Unmarshal(%q)", s)
			return
		}
		got, err := marshal(id)
		require.NoError(t, err, "Marshal(Unmarshal(%q))", s)
		assert.Equal(t, strconv.Quote(s), got, "Marshal(Unmarshal(%q))", s)
	})
}

var _ graphql.ContextMarshaler = oncegql.Marshal(UserID{})
