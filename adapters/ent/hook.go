package oncent

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"entgo.io/ent"
	"entgo.io/ent/schema/mixin"

	"github.com/once-go/once/adapters/internal/configerr"
	"github.com/once-go/once/adapters/internal/idfield"
	"github.com/once-go/once/once"
)

// Mixin declares an entity's primary key as an ID of type T ([ID]) and
// fills it on create ([Hook]):
//
//	func (User) Mixin() []ent.Mixin { return []ent.Mixin{oncent.Mixin[ids.UserID]{}} }
type Mixin[T once.IDType] struct {
	mixin.Schema
	// PresetIDs makes every create of the entity keep a key set before it
	// (SetID), as [WithPresetIDs] does for the creates under one context.
	PresetIDs bool
}

// Fields returns the "id" field of type T.
func (Mixin[T]) Fields() []ent.Field { return []ent.Field{ID[T]()} }

// Hooks returns the hook that fills the key on create ([Hook], keeping
// preset keys when m.PresetIDs is set).
func (m Mixin[T]) Hooks() []ent.Hook { return []ent.Hook{hook[T](m.PresetIDs)} }

// idMutation is what ent generates for a mutation of an entity whose key
// is a user-defined field of type T.
type idMutation[T once.IDType] interface {
	ID() (T, bool)
	SetID(T)
}

// Hook returns an ent hook that gives each create mutation (Create and
// every builder of CreateBulk) a new ID of type T when it holds none or the
// zero ID. A create whose key was set before (SetID, such as with an "id"
// a client sent) fails with [ErrPresetID] unless its context comes from
// [WithPresetIDs] (or the entity's [Mixin] sets PresetIDs). When no ID can
// be generated it returns the generator's error, naming the entity
// (nonce.ErrDisabled without a lease, once.ErrNoGenerator without a
// generator), and the create runs no SQL; a bulk create fails as a whole.
// A create or update that sets an ID field to the zero ID (which has no
// database value; what encoding/json makes of "" for a *T) fails the same
// way, with an error matching once.ErrInvalid that names the entity and
// field. Other operations pass through. On an entity whose key is not a T
// it returns an [ErrConfig] error.
func Hook[T once.IDType]() ent.Hook { return hook[T](false) }

// hook is [Hook]; keep makes it keep preset keys in every create.
func hook[T once.IDType](keep bool) ent.Hook {
	kinds := new(fieldKinds)
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate | ent.OpUpdate | ent.OpUpdateOne) {
				if err := checkFields(m, kinds); err != nil {
					return nil, err
				}
			}
			if !m.Op().Is(ent.OpCreate) {
				return next.Mutate(ctx, m)
			}
			var zero T
			im, ok := m.(idMutation[T])
			if !ok {
				return nil, configError("hook for %T keys on %s, whose mutation %T has no ID of that type",
					zero, m.Type(), m)
			}
			if id, ok := im.ID(); !ok || id == zero {
				id, err := once.NewAs[T]()
				if err != nil {
					return nil, fmt.Errorf("oncent: new ID for %s: %w", m.Type(), err)
				}
				im.SetID(id)
			} else if !keep && !idfield.PresetIDs(ctx) {
				return nil, idfield.PresetError(ErrPresetID, "oncent", m.Type(), "id",
					"oncent.WithPresetIDs(ctx)", "oncent.Mixin[T]{PresetIDs: true}")
			}
			return next.Mutate(ctx, m)
		})
	}
}

// checkFields fails a mutation that sets an ID field to the zero ID. It
// reads (and so boxes) only the fields that hold IDs: which names do is
// learned per mutation type from the first value seen (a generated
// mutation's Field returns one Go type per name) and kept in kinds.
func checkFields(m ent.Mutation, kinds *fieldKinds) error {
	mt := reflect.TypeOf(m)
	may, known := kinds.lookup(mt, "")
	if !known {
		may = mayHoldIDs(mt)
		kinds.learn(mt, "", may)
	}
	if !may {
		return nil
	}
	for _, name := range m.Fields() {
		isID, known := kinds.lookup(mt, name)
		if known && !isID {
			continue
		}
		v, ok := m.Field(name)
		if !ok || v == nil {
			continue
		}
		rv := reflect.ValueOf(v)
		_, shape, isID := idfield.Field(rv.Type())
		if !known {
			kinds.learn(mt, name, isID)
		}
		if isID && idfield.Unset(rv, shape) {
			return configerr.New(once.ErrInvalid, "oncent",
				`%s.%s is the zero ID (no ID; JSON "" decodes so), which has no database value: set an ID, or leave the field unset (Clear it on update) for NULL`,
				m.Type(), name)
		}
	}
	return nil
}

// mayHoldIDs reports whether mutation type mt may have fields that hold
// IDs. ent generates a mutation as a pointer to a struct that keeps each
// field it sets in a struct field of the field's Go type (a pointer to
// it); when none but the key ("id", which Fields does not list) can hold
// an ID, no field of the mutation can be set to one, and checkFields need
// not ask for its fields (Fields allocates). Any other shape may.
func mayHoldIDs(mt reflect.Type) bool {
	if mt.Kind() != reflect.Pointer || mt.Elem().Kind() != reflect.Struct {
		return true
	}
	st := mt.Elem()
	for i := range st.NumField() {
		if f := st.Field(i); f.Name != "id" && mayHold(f.Type, f.Anonymous, 0) {
			return true
		}
	}
	return false
}

// mayHold reports whether a struct field of type t may hold an ID: an ID
// type (behind pointers, or in sql.Null), an interface (unless embedded,
// where it supplies methods), or a map, slice or array of such. A type
// nested deeper than a few levels (a type that contains itself) may.
func mayHold(t reflect.Type, embedded bool, depth int) bool {
	for t.Kind() == reflect.Pointer && depth < 8 {
		t, depth = t.Elem(), depth+1
	}
	if depth >= 8 {
		return true
	}
	if _, _, isID := idfield.Field(t); isID {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return !embedded
	case reflect.Map:
		return mayHold(t.Key(), false, depth+1) || mayHold(t.Elem(), false, depth+1)
	case reflect.Slice, reflect.Array:
		return mayHold(t.Elem(), false, depth+1)
	}
	return false
}

// fieldKinds records, for the mutation types one hook has seen, whether
// each field holds an ID (and, under the name "", whether the type may
// hold any: mayHoldIDs). It is a short list, copied on write: a hook
// serves one entity (Mixin) or a few (a client's Use), of a few fields.
type fieldKinds struct {
	mu   sync.Mutex
	list atomic.Pointer[[]fieldKind]
}

type fieldKind struct {
	mutation reflect.Type
	name     string
	isID     bool
}

func (k *fieldKinds) lookup(mutation reflect.Type, name string) (isID, known bool) {
	if l := k.list.Load(); l != nil {
		for _, f := range *l {
			if f.name == name && f.mutation == mutation {
				return f.isID, true
			}
		}
	}
	return false, false
}

func (k *fieldKinds) learn(mutation reflect.Type, name string, isID bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, known := k.lookup(mutation, name); known {
		return
	}
	var l []fieldKind
	if p := k.list.Load(); p != nil {
		l = slices.Clone(*p)
	}
	l = append(l, fieldKind{mutation, name, isID})
	k.list.Store(&l)
}
