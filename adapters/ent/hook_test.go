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
	next := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) {
		reached = true
		return nil, nil
	})
	_, err = oncent.Hook[UserID]()(next).Mutate(context.Background(), m)
	return reached, err
}

func TestHook(t *testing.T) {
	generator(t, true)
	kept := UserID(once.FromUint64(42))
	for _, c := range []struct {
		name string
		m    *mutation
		keep bool // the ID stays as it was
	}{
		{"create without ID", &mutation{op: ent.OpCreate}, false},
		{"create with the zero ID", &mutation{op: ent.OpCreate, set: true}, false},
		{"create with an ID", &mutation{op: ent.OpCreate, id: kept, set: true}, true},
		{"update", &mutation{op: ent.OpUpdateOne}, true},
		{"delete", &mutation{op: ent.OpDelete}, true},
	} {
		before := c.m.id
		reached, err := mutate(c.m)
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
