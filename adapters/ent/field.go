package oncent

import (
	"database/sql/driver"
	"fmt"
	"go/token"
	"path"
	"reflect"
	"strings"

	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/once-go/once/once"
)

// A Builder declares an ent field that holds IDs of one type. It implements
// ent.Field; its methods set what the field builders of ent's field package
// set and return the builder for chaining.
type Builder struct {
	desc *field.Descriptor
}

// Field returns a field named name holding IDs of type T (once.ID or a
// once.Typed ID): Go type T, the column type of T's DB format in each
// dialect, required unless made Optional. Use it for foreign keys and other
// ID columns; [ID] and [Mixin] declare the primary key. Invalid options of
// T, or a spec type ent's generated code cannot name (see the package
// documentation), are reported when ent loads the schema.
func Field[T once.IDType](name string) *Builder {
	var zero T
	err := once.Check(zero)
	var types map[string]string
	if err == nil {
		types = schemaTypes(zero.Options())
	}
	d := field.Other(name, any(zero).(driver.Valuer)).SchemaType(types).Descriptor()
	if err == nil {
		err = nameType(d.Info, reflect.TypeFor[T]())
	}
	if err != nil {
		d.Err = configError("field %s: %w", name, err)
	}
	return &Builder{d}
}

// ID returns the primary-key field "id" holding IDs of type T: immutable,
// and defaulting to the zero ID, which has no database value, so that a
// create fails (once.ErrInvalid) unless [Hook] or the caller sets the ID.
// [Mixin] declares it together with the hook.
func ID[T once.IDType]() *Builder {
	b := Field[T]("id").Immutable()
	b.desc.Default = func() T { var zero T; return zero }
	return b
}

// nameType rewrites the type name ent's generator prints for a once.Typed
// ID. reflect spells it once.Typed[import/path.Spec], which is not Go; the
// generated code gets once.Typed[alias.Spec] and imports the spec's package
// under alias, the last path element with "kind" appended (ent's generated
// code has variables named like common package names, such as ids).
func nameType(info *field.TypeInfo, t reflect.Type) error {
	s := t.String()
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return nil // once.ID: ent names it as it is
	}
	spec := s[open+1 : len(s)-1]
	dot := strings.LastIndexByte(spec, '.')
	pkgPath, name := spec[:max(dot, 0)], spec[dot+1:]
	switch {
	case dot < 0 || strings.ContainsAny(spec, "[]*"):
		return fmt.Errorf("ID type %.80s: want a spec declared as a named struct type", s)
	case !token.IsExported(name):
		return fmt.Errorf("spec type %.80s is not exported: ent's generated code names the ID type from another package", spec)
	case pkgPath == "main":
		return fmt.Errorf("spec type %.80s: declare it in an importable package, not in main", spec)
	}
	alias := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, path.Base(pkgPath)) + "kind"
	if !token.IsIdentifier(alias) {
		alias = "oncekind"
	}
	ident := "once.Typed[" + alias + "." + name + "]"
	info.Ident, info.PkgPath, info.PkgName = ident, pkgPath, alias
	if info.RType != nil {
		info.RType.Ident, info.RType.PkgPath = ident, pkgPath
	}
	return nil
}

// Descriptor implements ent.Field.
func (b *Builder) Descriptor() *field.Descriptor { return b.desc }

// Optional makes the column nullable, the field optional on create and the
// Go field a *T (Nillable): once IDs refuse to scan NULL, so a nullable ID
// is nil when NULL.
func (b *Builder) Optional() *Builder { b.desc.Optional, b.desc.Nillable = true, true; return b }

// Nillable makes the Go field a *T.
func (b *Builder) Nillable() *Builder { b.desc.Nillable = true; return b }

// Immutable allows setting the field on create only.
func (b *Builder) Immutable() *Builder { b.desc.Immutable = true; return b }

// Unique adds a unique index on the field.
func (b *Builder) Unique() *Builder { b.desc.Unique = true; return b }

// Comment sets the field's comment.
func (b *Builder) Comment(c string) *Builder { b.desc.Comment = c; return b }

// StorageKey sets the column name.
func (b *Builder) StorageKey(key string) *Builder { b.desc.StorageKey = key; return b }

// StructTag sets the struct tag of the generated Go field.
func (b *Builder) StructTag(tag string) *Builder { b.desc.Tag = tag; return b }

// Annotations adds annotations for ent's code generator and its extensions.
func (b *Builder) Annotations(a ...schema.Annotation) *Builder {
	b.desc.Annotations = append(b.desc.Annotations, a...)
	return b
}
