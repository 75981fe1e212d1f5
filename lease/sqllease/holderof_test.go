package sqllease_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestHolderRecordedWithToken: Rows reports a row's holder only when the
// holder column starts with the first 8 bytes of the row's token in hex
// and a space; an 8-byte token is long enough, a value of the 16 hex
// digits alone records no holder.
func TestHolderRecordedWithToken(t *testing.T) {
	d := migrations.SQLite
	db := openDB(t, d)
	table := newTable(t, db, d)
	q, _ := migrations.QuoteTable(d, table)
	s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
	ctx := ctxT(t)
	tok8 := []byte("8-bytes!")
	tok16 := []byte("sixteen bytes ok")
	tok7 := []byte("7 bytes")
	for _, c := range []struct {
		id     int
		token  []byte
		column string
		want   string
	}{
		{1, tok8, hex.EncodeToString(tok8) + " pod-1", "pod-1"},
		{2, tok16, hex.EncodeToString(tok16[:8]), ""},
		{3, tok16, hex.EncodeToString(tok16[:8]) + " pod-3", "pod-3"},
		{4, tok16, strings.Repeat("0", 16) + " pod-4", ""},
		{5, tok7, hex.EncodeToString(tok7) + "00 pod-5", ""},
	} {
		mustExecDB(t, db, "UPDATE "+q+" SET token = ?, holder = ? WHERE id = ?", c.token, c.column, c.id)
		if r := rowOf(t, ctx, s, c.id); r.Holder != c.want {
			t.Errorf("token %q, holder column %q: Holder %q; want %q", c.token, c.column, r.Holder, c.want)
		}
	}

}
