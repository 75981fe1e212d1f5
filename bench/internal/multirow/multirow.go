// Package multirow writes the multi-row INSERT statements the database
// benchmarks send: one statement, rows as bind parameters.
package multirow

import "strings"

// Insert returns "INSERT INTO table (columns) VALUES (...),(...)" for rows
// rows, with placeholder(n) as the n-th (1-based) bind parameter.
func Insert(table string, columns []string, rows int, placeholder func(n int) string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES ")
	p := 1
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range columns {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteString(placeholder(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}
