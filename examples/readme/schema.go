package main

import (
	"encoding/json"
	"io"

	"github.com/once-go/once/once"
)

// writeSchema writes the JSON Schema of UserID (docs/openapi-graphql.md
// shows it).
func writeSchema(w io.Writer) error {
	// readme:begin schema
	// Imports: "encoding/json", "github.com/once-go/once/once".
	s, err := once.SchemaOf(UserID{}) // or an Options value's Schema()
	if err != nil {
		return err // the type's options are invalid (once.ErrConfig)
	}
	doc, err := json.MarshalIndent(s, "", "  ")
	// readme:end schema
	if err != nil {
		return err
	}
	_, err = w.Write(append(doc, '\n'))
	return err
}
