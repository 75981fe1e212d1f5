package oncegorm_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	oncegorm "github.com/once-go/once/adapters/gorm"
	_ "github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type customerSpec struct{}

func (customerSpec) Options() once.Options { return once.Options{Prefix: "cus_"} }

type CustomerID = once.Typed[customerSpec]

type Customer struct {
	ID   CustomerID
	Name string
}

func Example() {
	// Fixed: machine ID 1 at once, for this one process; in production
	// a lease manager activates a factory made without Fixed.
	f, _ := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)

	sqlDB, _ := sql.Open("sqlite", "file:oncegorm-example?mode=memory&cache=shared")
	defer sqlDB.Close()
	db, _ := gorm.Open(&sqlite.Dialector{Conn: sqlDB}, &gorm.Config{Logger: logger.Discard})

	if err := oncegorm.Register(db, &Customer{}); err != nil {
		panic(err)
	}
	db.AutoMigrate(&Customer{})
	c := Customer{Name: "Ada"}
	db.Create(&c) // c.ID is filled before the INSERT

	var got Customer
	db.First(&got, "id = ?", c.ID)
	var ddl string
	sqlDB.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'customers'`).Scan(&ddl)
	fmt.Println(got.ID == c.ID, len(c.ID.String()), c.ID.String()[:4])
	fmt.Println(ddl)
	// Output:
	// true 15 cus_
	// CREATE TABLE `customers` (`id` integer,`name` text,PRIMARY KEY (`id`))
}

// A handler that decodes a request body into the model hands the key to
// the client; the plugin refuses it. An import keeps its keys by opting
// in for its creates.
func ExampleWithPresetIDs() {
	f, _ := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	ctx := context.Background()

	sqlDB, _ := sql.Open("sqlite", "file:oncegorm-preset-example?mode=memory&cache=shared")
	defer sqlDB.Close()
	db, _ := gorm.Open(&sqlite.Dialector{Conn: sqlDB}, &gorm.Config{Logger: logger.Discard})
	if err := oncegorm.Register(db, &Customer{}); err != nil {
		panic(err)
	}
	db.AutoMigrate(&Customer{})

	var c Customer
	json.Unmarshal([]byte(`{"id":"cus_AAAAAAAAAAE","name":"Mallory"}`), &c)
	err := db.WithContext(ctx).Create(&c).Error
	fmt.Println(errors.Is(err, oncegorm.ErrPresetID), errors.Is(err, once.ErrInvalid))

	imported := []Customer{{ID: CustomerID(once.FromUint64(1)), Name: "Ada"}, {Name: "Grace"}}
	err = db.WithContext(oncegorm.WithPresetIDs(ctx)).Create(&imported).Error
	fmt.Println(err, imported[0].ID.Uint64(), imported[1].ID.IsZero())
	// Output:
	// true true
	// <nil> 1 false
}
