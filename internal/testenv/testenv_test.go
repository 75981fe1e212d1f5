package testenv

import (
	"strings"
	"testing"
)

func TestUnique(t *testing.T) {
	a, b := Unique(t, "once"), Unique(t, "once")
	if a == b {
		t.Fatalf("Unique returned %q twice", a)
	}
	if !strings.HasPrefix(a, "once_testunique_") || strings.ToLower(a) != a || len(a) > 63 {
		t.Fatalf("Unique = %q, want a lowercase name starting once_testunique_ within 63 bytes", a)
	}
}

func TestServices(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		var one int
		if err := Postgres(t).QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("SELECT 1 = %d, %v", one, err)
		}
	})
	t.Run("mysql", func(t *testing.T) {
		var one int
		if err := MySQL(t).QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("SELECT 1 = %d, %v", one, err)
		}
	})
	t.Run("sqlite", func(t *testing.T) {
		var one int
		if err := SQLite(t).QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("SELECT 1 = %d, %v", one, err)
		}
	})
	for _, s := range []Server{Redis7, Redis8, Valkey9} {
		t.Run(s.String(), func(t *testing.T) { Redis(t, s) })
	}
}
