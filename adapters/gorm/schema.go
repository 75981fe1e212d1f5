package oncegorm

import (
	"fmt"
	"reflect"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/once-go/once/adapters/internal/idfield"
)

// Prepare corrects GORM's cached schemas of models, and of every model they
// relate to (including many-to-many join tables), for db's dialect: each
// field holding an ID (T, *T, sql.Null[T]) gets its column type (unless it
// has a `gorm:"type:..."` tag), and an ID primary key is no longer taken for
// an auto-increment column. Call it (or [Register] with the models) before
// AutoMigrate; for db.Table(name).AutoMigrate(model), prepare with that
// db.Table(name) too. Preparing a model again does nothing more; Prepare is
// meant for start-up, before the models are used concurrently.
func Prepare(db *gorm.DB, models ...any) error {
	if db == nil || db.Config == nil || db.Dialector == nil {
		return configError("db is nil or not opened with gorm.Open")
	}
	d := idfield.DialectOf(db.Name())
	if d == 0 {
		return configError("unsupported dialect %q", db.Name())
	}
	seen := map[*schema.Schema]bool{}
	for i, m := range models {
		if m == nil {
			return configError("model %d is nil; pass a pointer such as &User{}", i)
		}
		stmt := &gorm.Statement{DB: db}
		if err := stmt.Parse(m); err != nil {
			return fmt.Errorf("oncegorm: %w", err)
		}
		if err := prepare(db, d, stmt.Schema, seen); err != nil {
			return err
		}
		// db.Table(name).AutoMigrate parses the model again under the
		// table name.
		if name := db.Statement.Table; name != "" {
			stmt := &gorm.Statement{DB: db}
			if err := stmt.ParseWithSpecialTableName(m, name); err != nil {
				return fmt.Errorf("oncegorm: %w", err)
			}
			if err := prepare(db, d, stmt.Schema, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

func prepare(db *gorm.DB, d idfield.Dialect, s *schema.Schema, seen map[*schema.Schema]bool) error {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	for _, f := range s.Fields {
		prepareField(d, s, f)
	}
	for _, rel := range s.Relationships.Relations {
		if err := prepare(db, d, rel.FieldSchema, seen); err != nil {
			return err
		}
		if rel.JoinTable == nil {
			continue
		}
		if err := prepare(db, d, rel.JoinTable, seen); err != nil {
			return err
		}
		// AutoMigrate parses the join table again under its table name.
		stmt := &gorm.Statement{DB: db}
		if err := stmt.ParseWithSpecialTableName(reflect.New(rel.JoinTable.ModelType).Interface(), rel.JoinTable.Table); err != nil {
			return fmt.Errorf("oncegorm: join table %s: %w", rel.JoinTable.Table, err)
		}
		if err := prepare(db, d, stmt.Schema, seen); err != nil {
			return err
		}
	}
	return nil
}

func prepareField(d idfield.Dialect, s *schema.Schema, f *schema.Field) {
	if f.StructField.Type == nil {
		return
	}
	it, _, ok := idfield.Field(f.StructField.Type)
	if !ok {
		return
	}
	if _, typed := f.TagSettings["TYPE"]; !typed {
		if t := idfield.SQLType(d, it.Options); t != "" {
			f.DataType = schema.DataType(t)
			f.Size = idfield.Size(d, it.Options)
			f.Precision, f.Scale = 0, 0
		}
	}
	if _, tagged := f.TagSettings["AUTOINCREMENT"]; f.AutoIncrement && !tagged {
		f.AutoIncrement = false
		if f.DefaultValue == "" && f.DefaultValueInterface == nil {
			f.HasDefaultValue = false
			s.FieldsWithDefaultDBValue = slices.DeleteFunc(slices.Clone(s.FieldsWithDefaultDBValue),
				func(g *schema.Field) bool { return g == f })
		}
	}
}
