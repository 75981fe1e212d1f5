package oncent_test

import (
	"context"
	"testing"

	"entgo.io/ent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/once"
)

// rowMutation is shaped like an ent-generated mutation: typed fields, and
// a Field that boxes the value it returns (an allocation for a string or
// an int64 above 255), as generated code does.
type rowMutation struct {
	ent.Mutation
	op    ent.Op
	id    *UserID
	n     *int64
	s     *string
	boss  *UserID
	names []string
}

func (m *rowMutation) Op() ent.Op   { return m.op }
func (m *rowMutation) Type() string { return "Row" }
func (m *rowMutation) ID() (UserID, bool) {
	if m.id == nil {
		return UserID{}, false
	}
	return *m.id, true
}
func (m *rowMutation) SetID(id UserID)  { m.id = &id }
func (m *rowMutation) Fields() []string { return m.names }
func (m *rowMutation) Field(name string) (ent.Value, bool) {
	switch name {
	case "n":
		if m.n != nil {
			return *m.n, true
		}
	case "s":
		if m.s != nil {
			return *m.s, true
		}
	case "boss_id":
		if m.boss != nil {
			return *m.boss, true
		}
	}
	return nil, false
}

// TestHookFieldCheckCost: the hook's check for zero ID fields reads, and
// so boxes, only the fields that hold IDs; on a create whose key is set
// (under WithPresetIDs) and whose other fields hold no ID it allocates
// nothing. A zero ID in a field of the same mutation type is still
// refused.
func TestHookFieldCheckCost(t *testing.T) {
	generator(t, true)
	next := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) { return nil, nil })
	h := oncent.Hook[UserID]()(next)
	ctx := oncent.WithPresetIDs(context.Background()) // the key is set before the create
	n, s, id := int64(100_000), "a payload that is not an ID", UserID(once.FromUint64(7))
	m := &rowMutation{op: ent.OpCreate, id: &id, n: &n, s: &s, names: []string{"n", "s"}}
	_, err := h.Mutate(ctx, m)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		_, err := h.Mutate(ctx, m)
		require.NoError(t, err)
	})
	assert.Zero(t, allocs, "create with non-ID fields: allocations per call")
	zero := UserID{}
	bad := &rowMutation{op: ent.OpUpdate, n: &n, s: &s, boss: &zero, names: []string{"n", "s", "boss_id"}}
	_, err = h.Mutate(ctx, bad)
	assert.ErrorIs(t, err, once.ErrInvalid, "update setting boss_id to the zero ID after creates of the same type")
	_, err = oncent.Hook[UserID]()(next).Mutate(ctx, &rowMutation{op: ent.OpCreate, boss: &zero, names: []string{"boss_id"}})
	assert.ErrorIs(t, err, once.ErrInvalid, "create with a zero boss_id")
}

// plainMutation is shaped like the generated mutation of an entity whose
// only ID is its key: no other field has an ID type.
type plainMutation struct {
	ent.Mutation
	op     ent.Op
	id     *UserID
	n      *int64
	s      *string
	fields int // calls of Fields
}

func (m *plainMutation) Op() ent.Op   { return m.op }
func (m *plainMutation) Type() string { return "Plain" }
func (m *plainMutation) ID() (UserID, bool) {
	if m.id == nil {
		return UserID{}, false
	}
	return *m.id, true
}
func (m *plainMutation) SetID(id UserID)  { m.id = &id }
func (m *plainMutation) Fields() []string { m.fields++; return []string{"n", "s"} }
func (m *plainMutation) Field(name string) (ent.Value, bool) {
	switch name {
	case "n":
		return *m.n, true
	case "s":
		return *m.s, true
	}
	return nil, false
}

// TestHookSkipsFieldsWithoutIDs: on a mutation type whose fields hold no
// ID (the key aside), the hook's zero-ID check does not ask for the
// mutation's fields (generated code allocates the list each time), on
// creates and on updates; a type with an ID field is still checked
// (TestHookFieldCheckCost).
func TestHookSkipsFieldsWithoutIDs(t *testing.T) {
	generator(t, true)
	next := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) { return nil, nil })
	h := oncent.Hook[UserID]()(next)
	n, s := int64(1), "x"
	for _, op := range []ent.Op{ent.OpCreate, ent.OpUpdateOne, ent.OpCreate} {
		m := &plainMutation{op: op, n: &n, s: &s}
		_, err := h.Mutate(context.Background(), m)
		require.NoError(t, err, op)
		assert.Zero(t, m.fields, "%v: calls of Fields", op)
		if op == ent.OpCreate {
			assert.NotNil(t, m.id, "%v: key not filled", op)
		}
	}
}

// selfMutation has fields of types that contain themselves: the check
// ends (and, not knowing, asks for the fields).
type selfMutation struct {
	plainMutation
	_ selfPtr
	_ selfSlice
}

type selfPtr *selfPtr

type selfSlice []selfSlice

func TestHookSelfReferentialFieldTypes(t *testing.T) {
	generator(t, true)
	next := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) { return nil, nil })
	n, s := int64(1), "x"
	m := &selfMutation{plainMutation: plainMutation{op: ent.OpCreate, n: &n, s: &s}}
	_, err := oncent.Hook[UserID]()(next).Mutate(context.Background(), m)
	assert.NoError(t, err)
}
