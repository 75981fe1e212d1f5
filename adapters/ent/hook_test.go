package oncent_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// mutation is the part of an ent-generated mutation the hook uses: the
// operation, the type, and a user-defined UserID key. Other methods of
// ent.Mutation are not called (the embedded nil interface would panic).
type mutation struct {
	ent.Mutation
	op     ent.Op
	id     UserID
	set    bool
	fields map[string]ent.Value
}

func (m *mutation) Op() ent.Op         { return m.op }
func (m *mutation) Type() string       { return "User" }
func (m *mutation) ID() (UserID, bool) { return m.id, m.set }
func (m *mutation) SetID(id UserID)    { m.id, m.set = id, true }
func (m *mutation) Fields() []string {
	var names []string
	for n := range m.fields {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
func (m *mutation) Field(name string) (ent.Value, bool) { v, ok := m.fields[name]; return v, ok }
func (m *otherMutation) Fields() []string               { return nil }
func (m *otherMutation) Op() ent.Op                     { return ent.OpCreate }
func (m *otherMutation) Type() string                   { return "Post" }
func (m *otherMutation) ID() (once.ID, bool)            { return once.ID{}, false }

type otherMutation struct{ ent.Mutation }

// generator sets the default generator until the test ends.
func generator(t *testing.T, activated bool) {
	t.Helper()
	f, err := nonce.New(nonce.Config{})
	require.NoError(t, err)
	if activated {
		require.NoError(t, f.Activate(7, time.Time{}, time.Time{}))
	}
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
}

// mutate runs m through the hook; reached reports whether the next
// mutator ran.
func mutate(m ent.Mutation) (reached bool, err error) {
	return mutateWith(context.Background(), oncent.Hook[UserID](), m)
}

// mutateWith runs m through hook under ctx.
func mutateWith(ctx context.Context, hook ent.Hook, m ent.Mutation) (reached bool, err error) {
	next := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) {
		reached = true
		return nil, nil
	})
	_, err = hook(next).Mutate(ctx, m)
	return reached, err
}

func TestHook(t *testing.T) {
	generator(t, true)
	kept := UserID(once.FromUint64(42))
	keepCtx := oncent.WithPresetIDs(context.Background())
	presetMixin := oncent.Mixin[UserID]{PresetIDs: true}.Hooks()[0]
	for _, c := range []struct {
		name string
		ctx  context.Context
		hook ent.Hook
		m    *mutation
		keep bool // the ID stays as it was
	}{
		{"create without ID", nil, nil, &mutation{op: ent.OpCreate}, false},
		{"create with the zero ID", nil, nil, &mutation{op: ent.OpCreate, set: true}, false},
		{"create with an ID, WithPresetIDs", keepCtx, nil, &mutation{op: ent.OpCreate, id: kept, set: true}, true},
		{"create with an ID, Mixin{PresetIDs: true}", nil, presetMixin, &mutation{op: ent.OpCreate, id: kept, set: true}, true},
		{"create without ID, Mixin{PresetIDs: true}", nil, presetMixin, &mutation{op: ent.OpCreate}, false},
		{"update", nil, nil, &mutation{op: ent.OpUpdateOne}, true},
		{"update, its key set", nil, nil, &mutation{op: ent.OpUpdateOne, id: kept, set: true}, true},
		{"delete", nil, nil, &mutation{op: ent.OpDelete}, true},
	} {
		before := c.m.id
		if c.ctx == nil {
			c.ctx = context.Background()
		}
		if c.hook == nil {
			c.hook = oncent.Hook[UserID]()
		}
		reached, err := mutateWith(c.ctx, c.hook, c.m)
		noErr := assert.NoError(t, err, c.name)
		ran := assert.True(t, reached, "%s: next did not run", c.name)
		if !noErr || !ran {
			continue
		}
		if c.keep {
			assert.Equal(t, before, c.m.id, "%s: ID %v changed to %v", c.name, before, c.m.id)
		} else {
			assert.False(t, c.m.id.IsZero(), "%s: no ID set", c.name)
			assert.True(t, c.m.set, "%s: no ID set", c.name)
		}
	}
}

func TestHookErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(t *testing.T)
		want error
	}{
		{"no lease", func(t *testing.T) { generator(t, false) }, nonce.ErrDisabled},
		{"no generator", func(t *testing.T) { once.DefaultBinding().Set(nil) }, once.ErrNoGenerator},
	} {
		c.set(t)
		m := &mutation{op: ent.OpCreate}
		reached, err := mutate(m)
		if prefix := "oncent: new ID for User: "; assert.ErrorIs(t, err, c.want, c.name) {
			assert.True(t, strings.HasPrefix(err.Error(), prefix), "%s: %v, want the prefix %q", c.name, err, prefix)
		}
		assert.False(t, reached, "%s: next ran", c.name)
		assert.False(t, m.set, "%s: ID set", c.name)
	}
	generator(t, true)
	for _, op := range []ent.Op{ent.OpCreate, ent.OpUpdate, ent.OpUpdateOne} {
		m := &mutation{op: op, fields: map[string]ent.Value{"email": "a@example.com", "boss_id": UserID{}}}
		reached, err := mutate(m)
		if prefix := "oncent: User.boss_id is the zero ID"; assert.ErrorIs(t, err, once.ErrInvalid, "%s with a zero ID field", op) {
			assert.True(t, strings.HasPrefix(err.Error(), prefix), "%s with a zero ID field: %v, want the prefix %q", op, err, prefix)
		}
		assert.False(t, reached, "%s with a zero ID field: next ran", op)
		m.fields["boss_id"] = UserID(once.FromUint64(3))
		reached, err = mutate(m)
		assert.NoError(t, err, "%s with an ID field", op)
		assert.True(t, reached, "%s with an ID field: next did not run", op)
	}
	// A key set before the create, without the opt-in.
	for _, ctx := range []context.Context{context.Background(), oncent.WithPresetIDs(context.Background())} {
		kept := UserID(once.FromUint64(42))
		m := &mutation{op: ent.OpCreate, id: kept, set: true}
		reached, err := mutateWith(ctx, oncent.Hook[UserID](), m)
		if ctx == context.Background() {
			assert.ErrorIs(t, err, oncent.ErrPresetID, "create with a preset key")
			assert.ErrorIs(t, err, once.ErrInvalid, "create with a preset key")
			if prefix := "oncent: User.id holds an ID set before the insert"; assert.Error(t, err) {
				assert.True(t, strings.HasPrefix(err.Error(), prefix), "create with a preset key: %v, want the prefix %q", err, prefix)
				assert.Contains(t, err.Error(), "oncent.WithPresetIDs(ctx)", "the error names the switch")
			}
			assert.False(t, reached, "create with a preset key: next ran")
			assert.Equal(t, kept, m.id, "create with a preset key: the mutation's key changed")
			continue
		}
		assert.NoError(t, err, "create with a preset key under WithPresetIDs")
		assert.True(t, reached, "create with a preset key under WithPresetIDs: next did not run")
	}
	reached, err := mutate(&otherMutation{})
	if prefix := "oncent: hook for "; assert.ErrorIs(t, err, oncent.ErrConfig, "mutation without a UserID key") {
		assert.True(t, strings.HasPrefix(err.Error(), prefix), "mutation without a UserID key: %v, want the prefix %q", err, prefix)
	}
	assert.False(t, reached, "mutation without a UserID key: next ran")
}

func TestMixin(t *testing.T) {
	var m oncent.Mixin[UserID]
	fields, hooks := m.Fields(), m.Hooks()
	assert.Len(t, hooks, 1, "mixin: hooks")
	if assert.Len(t, fields, 1, "mixin: fields") {
		d := fields[0].Descriptor()
		assert.Equal(t, "id", d.Name, "mixin: the field's name")
		assert.True(t, d.Immutable, "mixin: the id field is not immutable")
	}
}
