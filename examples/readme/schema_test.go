package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaOutput: the JSON Schema that docs/openapi-graphql.md shows after
// the schema block is what the program writes.
func TestSchemaOutput(t *testing.T) {
	var out bytes.Buffer
	if err := writeSchema(&out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "openapi-graphql.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "```json\n" + out.String() + "```\n"; !strings.Contains(string(page), want) {
		t.Errorf("docs/openapi-graphql.md does not show the schema the program writes:\n%s", want)
	}
}
