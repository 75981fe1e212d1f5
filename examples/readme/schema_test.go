package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemaOutput: the JSON Schema that docs/openapi-graphql.md shows after
// the schema block is what the program writes.
func TestSchemaOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, writeSchema(&out))
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "openapi-graphql.md"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "```json\n"+out.String()+"```\n", "docs/openapi-graphql.md does not show the schema the program writes")
}
