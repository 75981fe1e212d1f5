package oncesqlx

import "testing"

func TestInserts(t *testing.T) {
	for q, want := range map[string]bool{
		`INSERT INTO users (id) VALUES (:id)`:                          true,
		`  insert into users (id) values (:id) on conflict do nothing`: true,
		`REPLACE INTO users (id) VALUES (:id)`:                         true,
		`WITH x AS (SELECT 1) INSERT INTO users (id) VALUES (:id)`:     true,
		`UPDATE users SET email = :email WHERE id = :id`:               false,
		"\n\t-- rename\n update users set email = :email":              false,
		`/* purge */ DELETE FROM users WHERE id = :id`:                 false,
		`(SELECT id FROM users WHERE id = :id)`:                        false,
		`/* unterminated`:                                              true,
		``:                                                             true,
	} {
		if got := inserts(q); got != want {
			t.Errorf("inserts(%q) = %v, want %v", q, got, want)
		}
	}
}
