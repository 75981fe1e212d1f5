package oncent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent"

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
	f, err := nonce.New(nonce.Config{MachineID: 7, AwaitLease: true})
	if err != nil {
		t.Fatal(err)
	}
	if activated {
		if err := f.Activate(7, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
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
		switch {
		case err != nil || !reached:
			t.Errorf("%s: %v, next ran: %v", c.name, err, reached)
		case c.keep && c.m.id != before:
			t.Errorf("%s: ID %v changed to %v", c.name, before, c.m.id)
		case !c.keep && (c.m.id.IsZero() || !c.m.set):
			t.Errorf("%s: no ID set", c.name)
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
		{"no generator", func(t *testing.T) { once.SetGenerator(nil) }, once.ErrNoGenerator},
	} {
		c.set(t)
		m := &mutation{op: ent.OpCreate}
		reached, err := mutate(m)
		if !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), "oncent: new ID for User: ") || reached || m.set {
			t.Errorf("%s: %v, next ran: %v, ID set: %v; want %v", c.name, err, reached, m.set, c.want)
		}
	}
	generator(t, true)
	for _, op := range []ent.Op{ent.OpCreate, ent.OpUpdate, ent.OpUpdateOne} {
		m := &mutation{op: op, fields: map[string]ent.Value{"email": "a@example.com", "boss_id": UserID{}}}
		reached, err := mutate(m)
		if !errors.Is(err, once.ErrInvalid) || !strings.HasPrefix(err.Error(), "oncent: User.boss_id is the zero ID") || reached {
			t.Errorf("%s with a zero ID field: %v, next ran: %v; want once.ErrInvalid", op, err, reached)
		}
		m.fields["boss_id"] = UserID(once.FromUint64(3))
		if reached, err := mutate(m); err != nil || !reached {
			t.Errorf("%s with an ID field: %v, next ran: %v", op, err, reached)
		}
	}
	reached, err := mutate(&otherMutation{})
	if !errors.Is(err, oncent.ErrConfig) || !strings.HasPrefix(err.Error(), "oncent: hook for ") || reached {
		t.Errorf("mutation without a UserID key: %v, next ran: %v; want oncent.ErrConfig", err, reached)
	}
}

func TestMixin(t *testing.T) {
	var m oncent.Mixin[UserID]
	fields, hooks := m.Fields(), m.Hooks()
	if len(fields) != 1 || fields[0].Descriptor().Name != "id" || !fields[0].Descriptor().Immutable || len(hooks) != 1 {
		t.Errorf("mixin: %d fields, %d hooks", len(fields), len(hooks))
	}
}
