package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
BenchmarkGenerate/once-counter-2   100  2.0 ns/op  0 B/op  0 allocs/op
BenchmarkGenerate/once-counter-2   100  4.0 ns/op  0 B/op  0 allocs/op
BenchmarkGenerate/once-counter-2   100  3.0 ns/op  0 B/op  0 allocs/op
BenchmarkGenerate/xid-2            100  40.0 ns/op 0 B/op  0 allocs/op
BenchmarkGenerate/snowflake-2      100  244.0 ns/op 4096000 ceiling-ids/s 0 B/op 0 allocs/op
BenchmarkParse/once-2              100  20.0 ns/op
BenchmarkParse/once-prefixed-2     100  22.0 ns/op
BenchmarkParse/once-masked-2       100  70.0 ns/op
BenchmarkParse/ulid-2              100  21.0 ns/op
`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	goFile := filepath.Join(dir, "go.txt")
	pgFile := filepath.Join(dir, "pg.json")
	os.WriteFile(goFile, []byte(sampleOutput), 0o644)
	os.WriteFile(pgFile, []byte(`[{"key":"once-counter","rows":10,"rows_per_second":300,"index_bytes":100},
		{"key":"serial","rows":10,"rows_per_second":300,"index_bytes":100},
		{"key":"uuidv4","rows":10,"rows_per_second":100,"index_bytes":180}]`), 0o644)
	var out bytes.Buffer
	if err := run(goFile, pgFile, "", &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"once-counter 3.0 vs xid 40.0 ns/op: 13.3x | met",
		"once-prefixed 22.0 vs ulid 21.0 ns/op: 1.05x the time | missed",
		"70.0 vs 20.0 ns/op: 3.50x | missed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "0.556x | met") || !strings.Contains(out.String(), "3.00x | met") {
		t.Errorf("database rows wrong:\n%s", out.String())
	}
}
