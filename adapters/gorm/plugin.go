package oncegorm

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/once-go/once/adapters/internal/idfield"
)

// Plugin is the GORM plugin: db.Use(oncegorm.Plugin{Models: ...}). Register
// is the shorter way to install it.
type Plugin struct {
	// Models are prepared (see [Prepare]) when the plugin is installed.
	Models []any
}

// Name implements gorm.Plugin.
func (Plugin) Name() string { return "oncegorm" }

// Initialize implements gorm.Plugin: it registers the fill callback before
// GORM's BeforeCreate hooks, wraps GORM's create callback (checks for zero
// IDs, upserts), checks updates for zero IDs and prepares p.Models.
func (p Plugin) Initialize(db *gorm.DB) error {
	if db == nil {
		return configError("Plugin.Initialize: db is nil")
	}
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return configError("Plugin.Initialize: GORM's create callback gorm:create is not registered")
	}
	if err := create.Before("gorm:before_create").Register("oncegorm:fill", fill); err != nil {
		return fmt.Errorf("oncegorm: %w", err)
	}
	if err := create.Replace("gorm:create", createCallback(insert)); err != nil {
		return fmt.Errorf("oncegorm: %w", err)
	}
	if err := create.After("gorm:commit_or_rollback_transaction").Register("oncegorm:unfill", unfill); err != nil {
		return fmt.Errorf("oncegorm: %w", err)
	}
	if err := db.Callback().Update().Before("gorm:update").Register("oncegorm:check", checkUpdate); err != nil {
		return fmt.Errorf("oncegorm: %w", err)
	}
	return Prepare(db, p.Models...)
}

// createCallback wraps GORM's create callback insert: it refuses rows
// that would write the zero ID, runs upserts itself (see [upsertOf]) and
// hands every other create to insert.
func createCallback(insert func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		checkCreate(db)
		if db.Error != nil {
			return
		}
		if db.DryRun {
			insert(db)
			return
		}
		if u := upsertOf(db); u != nil {
			u.create()
			return
		}
		insert(db)
	}
}

// Register installs the plugin on db and prepares models (see [Prepare]).
// A plugin is installed once per gorm.DB (a second Register fails with
// gorm.ErrRegistered); prepare models added later with Prepare.
func Register(db *gorm.DB, models ...any) error {
	if db == nil {
		return configError("Register: db is nil")
	}
	return db.Use(Plugin{Models: models})
}

// autoField is one field the fill callback looks at.
type autoField struct {
	field *schema.Field
	id    *idfield.Type
	shape idfield.Shape
	keep  bool // tagged once:"preset": a preset ID is kept
}

var autoFields sync.Map // *schema.Schema -> []autoField

// fieldsToFill returns (and caches) the ID fields of s to fill on create
// (see [idfield.AutoFill] for the rule).
func fieldsToFill(s *schema.Schema) []autoField {
	if v, ok := autoFields.Load(s); ok {
		return v.([]autoField)
	}
	var fs []autoField
	soleKey := len(s.PrimaryFields) == 1
	for _, f := range s.Fields {
		if f.StructField.Type == nil || !f.Creatable {
			continue
		}
		it, shape, ok := idfield.AutoFill(f.StructField, f.PrimaryKey && soleKey)
		if !ok {
			continue
		}
		fs = append(fs, autoField{field: f, id: it, shape: shape, keep: idfield.KeepsPreset(f.StructField)})
	}
	v, _ := autoFields.LoadOrStore(s, fs)
	return v.([]autoField)
}

// fill is the create callback: it fills zero IDs of the statement's model
// (a struct, or a slice or array of structs or pointers to them) and
// refuses preset IDs unless the statement's context or the field keeps
// them.
func fill(db *gorm.DB) {
	s := db.Statement.Schema
	if db.Error != nil || s == nil {
		return
	}
	fs := fieldsToFill(s)
	if len(fs) == 0 {
		return
	}
	var undo idfield.Undo
	var err error
	presets := idfield.Context(db.Statement.Context)
	rv := reflect.Indirect(db.Statement.ReflectValue)
	switch rv.Kind() {
	case reflect.Struct:
		err = fillStruct(db, rv, fs, &presets, &undo)
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len() && err == nil; i++ {
			if e := reflect.Indirect(rv.Index(i)); e.Kind() == reflect.Struct {
				err = fillStruct(db, e, fs, &presets, &undo)
			}
			if len(undo) == len(fs) && i == 0 { // the first row was filled: room for all
				undo = slices.Grow(undo, (rv.Len()-1)*len(fs))
			}
		}
	}
	if err != nil {
		undo.Run()
		db.AddError(err)
		return
	}
	if len(undo) > 0 {
		db.InstanceSet(filledKey, undo)
	}
}

// filledKey holds the statement's idfield.Undo for what fill set.
const filledKey = "oncegorm:filled"

// unfill is the last create callback: when the create failed, it resets
// the IDs fill set, so that no struct is left holding a key no row has.
func unfill(db *gorm.DB) {
	if db.Error == nil {
		return
	}
	if v, ok := db.InstanceGet(filledKey); ok {
		v.(idfield.Undo).Run()
	}
}

func fillStruct(db *gorm.DB, rv reflect.Value, fs []autoField, presets *idfield.Presets, undo *idfield.Undo) error {
	if !rv.CanAddr() {
		return nil // GORM reports unaddressable values itself
	}
	for _, f := range fs {
		v := f.field.ReflectValueOf(db.Statement.Context, rv)
		if !f.keep && idfield.Preset(v, f.shape) && !presets.Keep() {
			return idfield.PresetError(ErrPresetID, "oncegorm", f.field.Schema.Name, f.field.Name,
				"oncegorm.WithPresetIDs(ctx)", `the tag once:"preset"`)
		}
		u, err := f.id.Fill(v, f.shape)
		if err != nil {
			return fmt.Errorf("oncegorm: new ID for %s.%s: %w", f.field.Schema.Name, f.field.Name, err)
		}
		undo.Add(u)
	}
	return nil
}
