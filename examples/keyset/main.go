// Command keyset shows keyset pagination over masked, sortable IDs: clients
// see only masked event IDs ("evt_..."), page with the last one as the
// cursor, and ask for a creation-time window; the server unmasks the cursor
// and runs
//
//	SELECT id, name FROM keyset_events WHERE id > $cursor ORDER BY id LIMIT n
//	SELECT id, name FROM keyset_events WHERE id BETWEEN $lo AND $hi ORDER BY id LIMIT n
//
// on the primary key, with [once.IDRange] turning the window into the ID
// bounds $lo and $hi.
//
//	go run ./examples/keyset
//
// With no configuration it uses the SQLite file once-keyset.db in the
// system's temp directory (as the lease coordinator too); DATABASE_URL =
// postgres://... or mysql://... switches database. ONCE_KEY is the masking
// key. It stores 25 events a few milliseconds apart, then walks through
// them as a client of its HTTP API (GET /events) would, printing each
// request and what came back.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/once"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout, os.Getenv("DATABASE_URL"))
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "keyset:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, databaseURL string) error {
	db, err := exampledb.Open(ctx, databaseURL, "once-keyset.db")
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := exampledb.StartLease(ctx, db, os.Stderr)
	if err != nil {
		return err
	}
	defer l.Close()
	if l.DemoKey {
		fmt.Fprintln(os.Stderr, exampledb.DemoKeyNote)
	}

	store := &Store{db: db}
	if err := store.Migrate(ctx); err != nil {
		return err
	}
	if _, err := db.SQL.ExecContext(ctx, "DELETE FROM keyset_events"); err != nil { // a fresh demo
		return err
	}
	var added []Event
	for i := range 25 {
		e, err := store.Add(ctx, fmt.Sprintf("event %02d", i+1))
		if err != nil {
			return err
		}
		added = append(added, e)
		time.Sleep(2 * time.Millisecond) // distinct creation times, for the window below
	}
	fmt.Fprintf(out, "stored %d events in %s\n", len(added), db.Where)

	srv := httptest.NewServer(store)
	defer srv.Close()

	// Page through all events, 10 at a time, with the last ID as the cursor.
	cursor := ""
	for {
		q := url.Values{"limit": {"10"}}
		if cursor != "" {
			q.Set("after", cursor)
		}
		page, err := get(ctx, out, srv.URL, q)
		if err != nil {
			return err
		}
		if page.Next == "" {
			break
		}
		// What the server does with the cursor: it parses (unmasks) it.
		id, err := once.ParseAs[EventID](page.Next)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  next cursor %s: the server reads row id %d\n", page.Next, id.Int64())
		cursor = page.Next
	}

	// The events created in [created of event 06, created of event 13).
	_, err = get(ctx, out, srv.URL, url.Values{
		"from":  {added[5].Created.Format(time.RFC3339Nano)},
		"to":    {added[12].Created.Format(time.RFC3339Nano)},
		"limit": {"100"},
	})
	return err
}

// get asks for one page and prints the request and the events.
func get(ctx context.Context, out io.Writer, base string, q url.Values) (Page, error) {
	path := "/events?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return Page{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Page{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return Page{}, fmt.Errorf("GET %s: %s %s", path, resp.Status, b)
	}
	var page Page
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		return Page{}, err
	}
	fmt.Fprintf(out, "GET %s: %d events\n", path, len(page.Events))
	for _, e := range page.Events {
		fmt.Fprintf(out, "  %s  %s  %s\n", e.ID, e.Name, e.Created.Format("2006-01-02T15:04:05.000Z"))
	}
	return page, nil
}
