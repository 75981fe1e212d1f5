package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// EventID is shown as "evt_" and 11 masked characters (clients cannot read
// the time or the count behind it) and stored as a plain bigint. It is made
// as a sortable nonce: the stored values increase with creation time, so
// ORDER BY id is creation order (to the millisecond, across machines) and
// the timestamp inside an ID is when it was made.
type EventID = once.Typed[eventSpec]

type eventSpec struct{}

func (eventSpec) Options() once.Options {
	return once.Options{Prefix: "evt_", Mask: true, Nonce: nonce.Sortable}
}

// Event is a row of the events table.
type Event struct {
	ID   EventID `json:"id"`
	Name string  `json:"name"`
	// Created is read from the ID (once.TimeOf), not stored.
	Created time.Time `json:"created"`
}

// Page is what GET /events answers: events in ID order, and the cursor to
// ask for the next page with (empty on the last page).
type Page struct {
	Events []Event `json:"events"`
	Next   string  `json:"next,omitempty"`
}

// Store keeps events in table keyset_events.
type Store struct {
	db *exampledb.DB
}

// Migrate creates the table.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.db.SQL.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS keyset_events (
		id BIGINT PRIMARY KEY, name VARCHAR(200) NOT NULL)`)
	return err
}

// Add stores a new event named name.
func (s *Store) Add(ctx context.Context, name string) (Event, error) {
	id, err := once.NewAs[EventID]()
	if err != nil {
		return Event{}, err
	}
	_, err = s.db.SQL.ExecContext(ctx, s.rebind("INSERT INTO keyset_events (id, name) VALUES (?, ?)"), id, name)
	if err != nil {
		return Event{}, err
	}
	created, err := once.TimeOf(id)
	return Event{ID: id, Name: name, Created: created}, err
}

// Query selects a page of events.
type Query struct {
	After    EventID   // the cursor: events after this one; zero from the first
	From, To time.Time // a creation-time window [From, To); both zero for none
	Limit    int
}

// List returns the events of q in ID order. The cursor is the stored
// value (the client's masked text was unmasked when it was parsed), so the
// query is plain keyset pagination on the primary key; a time window is an
// ID range (once.IDRange) on the same index.
func (s *Store) List(ctx context.Context, q Query) ([]Event, error) {
	var where []string
	var args []any
	if !q.After.IsZero() {
		where = append(where, "id > ?")
		args = append(args, q.After)
	}
	if !q.From.IsZero() || !q.To.IsZero() {
		lo, hi, err := once.IDRange[EventID](q.From, q.To)
		if err != nil {
			return nil, err
		}
		where = append(where, "id BETWEEN ? AND ?")
		args = append(args, lo, hi)
	}
	query := "SELECT id, name FROM keyset_events"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY id LIMIT " + strconv.Itoa(q.Limit)
	rows, err := s.db.SQL.QueryContext(ctx, s.rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var events []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.Name); err != nil {
			return nil, err
		}
		if e.Created, err = once.TimeOf(e.ID); err != nil {
			return nil, err
		}
		events = append(events, e)
	}
	return events, rows.Err()
}

// rebind turns the ? placeholders of query into PostgreSQL's $1, $2, ...
func (s *Store) rebind(query string) string {
	if s.db.Dialect != migrations.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ServeHTTP answers GET /events?limit=N&after=CURSOR&from=T&to=T (T in
// RFC 3339). A cursor that is not an event ID of ours, in its one
// canonical masked spelling, and a bad window are 400s.
func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := Query{Limit: 10}
	var err error
	if a := v.Get("after"); a != "" {
		if q.After, err = once.ParseAs[EventID](a); err != nil { // unmasks
			httpError(w, "after: "+err.Error())
			return
		}
	}
	if l := v.Get("limit"); l != "" {
		if q.Limit, err = strconv.Atoi(l); err != nil || q.Limit < 1 || q.Limit > 100 {
			httpError(w, "limit: want 1 to 100")
			return
		}
	}
	if v.Has("from") || v.Has("to") {
		q.From, err = time.Parse(time.RFC3339Nano, v.Get("from"))
		if err == nil {
			q.To, err = time.Parse(time.RFC3339Nano, v.Get("to"))
		}
		if err != nil {
			httpError(w, "from, to: want both, as RFC 3339 times")
			return
		}
	}
	events, err := s.List(r.Context(), q)
	if errors.Is(err, once.ErrTimeRange) {
		httpError(w, err.Error())
		return
	}
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	page := Page{Events: events}
	if len(events) == q.Limit {
		next, err := events[len(events)-1].ID.MarshalText() // masks
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		page.Next = string(next)
	}
	if page.Events == nil {
		page.Events = []Event{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(page)
}

func httpError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
