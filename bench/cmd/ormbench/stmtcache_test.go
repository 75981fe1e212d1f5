package main

import (
	"testing"
)

// TestStmtCache: a query text is prepared once however often it runs, and
// reset closes what was prepared.
func TestStmtCache(t *testing.T) {
	_, db := services(t, "postgres")
	c := newStmtCache(db)
	for range 3 {
		rows, err := c.QueryContext(t.Context(), "SELECT 1")
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if !rows.Next() || rows.Scan(&n) != nil || n != 1 {
			t.Fatalf("SELECT 1: %d, %v", n, rows.Err())
		}
		rows.Close()
		if _, err := c.ExecContext(t.Context(), "SELECT 2"); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.m) != 2 {
		t.Errorf("%d statements cached for 2 query texts", len(c.m))
	}
	if err := c.reset(); err != nil || len(c.m) != 0 {
		t.Errorf("reset: %v, %d statements left", err, len(c.m))
	}
}
