package oncent_test

import (
	"context"
	"errors"
	"testing"

	"entgo.io/ent"

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
// and whose other fields hold no ID it allocates nothing. A zero ID in a
// field of the same mutation type is still refused.
func TestHookFieldCheckCost(t *testing.T) {
	generator(t, true)
	next := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) { return nil, nil })
	h := oncent.Hook[UserID]()(next)
	ctx := context.Background()
	n, s, id := int64(100_000), "a payload that is not an ID", UserID(once.FromUint64(7))
	m := &rowMutation{op: ent.OpCreate, id: &id, n: &n, s: &s, names: []string{"n", "s"}}
	if _, err := h.Mutate(ctx, m); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if _, err := h.Mutate(ctx, m); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("create with non-ID fields: %v allocations per call, want 0", allocs)
	}
	zero := UserID{}
	bad := &rowMutation{op: ent.OpUpdate, n: &n, s: &s, boss: &zero, names: []string{"n", "s", "boss_id"}}
	if _, err := h.Mutate(ctx, bad); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("update setting boss_id to the zero ID after creates of the same type: %v, want once.ErrInvalid", err)
	}
	if _, err := oncent.Hook[UserID]()(next).Mutate(ctx, &rowMutation{op: ent.OpCreate, boss: &zero, names: []string{"boss_id"}}); !errors.Is(err, once.ErrInvalid) {
		t.Errorf("create with a zero boss_id: %v, want once.ErrInvalid", err)
	}
}
