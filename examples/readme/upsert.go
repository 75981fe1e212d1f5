package main

// readme:begin upsert
import (
	"context"
	"errors"
	"net/http"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/once-go/once/once"
)

// Subscriber has a natural key, its email, next to its once key.
type Subscriber struct {
	ID    UserID `json:"id"`
	Email string `json:"email" gorm:"size:255;uniqueIndex"`
	Name  string `json:"name"`
}

// subscribe stores s, or renames the subscriber with its email. Either way
// s.ID is then the key of that row, never a key no row has.
func subscribe(ctx context.Context, gdb *gorm.DB, s *Subscriber) error {
	return gdb.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "email"}},
		DoUpdates: clause.AssignmentColumns([]string{"name"}),
	}).Create(s).Error
}

// statusOf is the HTTP status for the error of a write: a zero ID where a
// row needs an ID, such as "editor_id": "" in a request body, or an ID
// the client chose for a new row (oncegorm.ErrPresetID, which matches
// once.ErrInvalid), is the client's mistake.
func statusOf(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, once.ErrInvalid):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// readme:end upsert
