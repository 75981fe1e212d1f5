package main

// readme:begin gorm
import (
	"context"
	"database/sql"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	oncegorm "github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/migrations"
)

// saveGORM stores a user and two posts with GORM on the app's pool and
// reads the posts back. Its tables are gorm_users and gorm_posts, apart from
// bun's and sqlx's.
func saveGORM(ctx context.Context, db *sql.DB) ([]Post, error) {
	dialect, err := migrations.DetectDialect(db)
	if err != nil {
		return nil, err
	}
	gdb, err := gorm.Open(map[migrations.Dialect]gorm.Dialector{
		migrations.Postgres: postgres.New(postgres.Config{Conn: db}),
		migrations.MySQL:    mysql.New(mysql.Config{Conn: db}),
		migrations.SQLite:   &sqlite.Dialector{Conn: db},
	}[dialect], &gorm.Config{NamingStrategy: schema.NamingStrategy{TablePrefix: "gorm_"}})
	if err != nil {
		return nil, err
	}
	// Register: IDs filled before each INSERT, ID columns bigint (not auto-increment).
	if err := oncegorm.Register(gdb, &User{}, &Post{}); err != nil {
		return nil, err
	}
	gdb = gdb.WithContext(ctx)
	if err := gdb.AutoMigrate(&User{}, &Post{}); err != nil {
		return nil, err
	}
	ada := User{Email: "ada@example.com"}
	if err := gdb.Create(&ada).Error; err != nil { // ada.ID is set now
		return nil, err
	}
	posts := []Post{{AuthorID: ada.ID, Title: "Notes"}, {AuthorID: ada.ID, EditorID: &ada.ID, Title: "Engine"}}
	if err := gdb.Create(&posts).Error; err != nil {
		return nil, err
	}
	var got []Post
	err = gdb.Where("author_id = ?", ada.ID).Order("title").Find(&got).Error
	return got, err
}

// readme:end gorm
