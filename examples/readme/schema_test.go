package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaOutput: the JSON Schema the README shows after the schema block
// is what the program writes.
func TestSchemaOutput(t *testing.T) {
	var out bytes.Buffer
	if err := writeSchema(&out); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "```json\n" + out.String() + "```\n"; !strings.Contains(string(readme), want) {
		t.Errorf("the README does not show the schema the program writes:\n%s", want)
	}
}
