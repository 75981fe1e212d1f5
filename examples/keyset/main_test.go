package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var (
	eventLine = regexp.MustCompile(`^  (evt_[A-Za-z0-9_-]{11})  event (\d\d)  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	getLine   = regexp.MustCompile(`^GET /events\?(\S+): (\d+) events$`)
)

// TestProgram runs the program on SQLite, PostgreSQL and MariaDB and
// checks its walk-through: three pages (10, 10, 5) with every event once,
// in order, and a window of the seven events created from event 06 up to
// (not including) event 13.
func TestProgram(t *testing.T) {
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "keyset.db") }},
		{"postgres", func(t *testing.T) string { _, dsn := testenv.PostgresSchema(t, "keyset"); return dsn }},
		{"mariadb", func(t *testing.T) string { _, dsn := testenv.MySQLDatabase(t, "keyset"); return "mysql://" + dsn }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := run(ctx, &out, c.url(t)); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			checkWalkThrough(t, out.String())
		})
	}
}

func checkWalkThrough(t *testing.T, out string) {
	t.Helper()
	var counts []int
	var names []string
	ids := map[string]string{} // name -> ID
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if m := getLine.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			counts = append(counts, n)
		} else if m := eventLine.FindStringSubmatch(l); m != nil {
			names = append(names, m[2])
			if prev, ok := ids[m[2]]; ok && prev != m[1] {
				t.Errorf("event %s shown as %s and %s", m[2], prev, m[1])
			}
			ids[m[2]] = m[1]
		}
	}
	if !slices.Equal(counts, []int{10, 10, 5, 7}) {
		t.Errorf("pages of %v events, want 10, 10, 5 and the window's 7\n%s", counts, out)
	}
	var want []string
	for i := 1; i <= 25; i++ {
		want = append(want, fmt.Sprintf("%02d", i))
	}
	want = append(want, "06", "07", "08", "09", "10", "11", "12")
	if !slices.Equal(names, want) {
		t.Errorf("events shown: %v\nwant %v\n%s", names, want, out)
	}
	if !strings.Contains(out, "next cursor "+ids["10"]+": the server reads row id ") {
		t.Errorf("the first page's cursor is not its last event %s:\n%s", ids["10"], out)
	}
}

// clock is a manual clock for a nonce factory.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// handlerStore returns a store on a fresh SQLite database with 30 events
// made 1 ms apart from t0 (event i at t0 + i ms, named "e00".."e29").
func handlerStore(t *testing.T, t0 time.Time) (*httptest.Server, []Event) {
	t.Helper()
	c := &clock{t: t0}
	f, err := nonce.New(nonce.Config{MachineID: 3, BaseKey: []byte(exampledb.DemoKey), Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	once.SetGenerator(f)
	t.Cleanup(func() { once.SetGenerator(nil) })
	store := &Store{db: &exampledb.DB{SQL: testenv.SQLite(t), Dialect: migrations.SQLite}}
	if err := store.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	var events []Event
	for i := range 30 {
		c.set(t0.Add(time.Duration(i) * time.Millisecond))
		e, err := store.Add(t.Context(), fmt.Sprintf("e%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		if !e.Created.Equal(c.now()) {
			t.Fatalf("event %d created %v, clock %v", i, e.Created, c.now())
		}
		events = append(events, e)
	}
	srv := httptest.NewServer(store)
	t.Cleanup(srv.Close)
	return srv, events
}

// fetch returns the status, the page and the raw body of GET /events?q.
func fetch(t *testing.T, srv *httptest.Server, q url.Values) (int, Page, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + "/events?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	var p Page
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", b.String(), err)
		}
	}
	return resp.StatusCode, p, b.String()
}

func names(p Page) string {
	var s []string
	for _, e := range p.Events {
		s = append(s, e.Name)
	}
	return strings.Join(s, " ")
}

// TestHandlerPagination: paging with the masked cursor visits every event
// once, in creation order, and no page shows a stored value.
func TestHandlerPagination(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	srv, events := handlerStore(t, t0)
	var seen []string
	cursor := ""
	for range 10 {
		q := url.Values{"limit": {"7"}}
		if cursor != "" {
			q.Set("after", cursor)
		}
		code, p, body := fetch(t, srv, q)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", q.Encode(), code, body)
		}
		for _, e := range events {
			if strings.Contains(body, strconv.FormatInt(e.ID.Int64(), 10)) || strings.Contains(body, once.ID(e.ID).String()) {
				t.Fatalf("page shows the stored value of %s: %s", e.Name, body)
			}
		}
		for _, e := range p.Events {
			seen = append(seen, e.Name)
		}
		if p.Next == "" {
			break
		}
		if p.Next != p.Events[len(p.Events)-1].ID.String() {
			t.Fatalf("next %s is not the last event's ID", p.Next)
		}
		cursor = p.Next
	}
	var want []string
	for _, e := range events {
		want = append(want, e.Name)
	}
	if !slices.Equal(seen, want) {
		t.Errorf("paged through %v\nwant %v", seen, want)
	}
}

// TestHandlerWindow: a time window returns exactly the events created in
// [from, to), also combined with a cursor; a window inside one millisecond
// returns none.
func TestHandlerWindow(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	srv, _ := handlerStore(t, t0)
	ms := func(n float64) string {
		return t0.Add(time.Duration(n * float64(time.Millisecond))).Format(time.RFC3339Nano)
	}
	for _, c := range []struct {
		q    url.Values
		want string
	}{
		{url.Values{"from": {ms(5)}, "to": {ms(12)}}, "e05 e06 e07 e08 e09 e10 e11"},
		{url.Values{"from": {ms(4.5)}, "to": {ms(7.2)}}, "e05 e06 e07"},
		{url.Values{"from": {ms(5.2)}, "to": {ms(5.9)}}, ""},
		{url.Values{"from": {ms(-1000)}, "to": {ms(2)}}, "e00 e01"},
		{url.Values{"from": {ms(28)}, "to": {ms(1e6)}, "limit": {"1"}}, "e28"},
	} {
		code, p, body := fetch(t, srv, c.q)
		if code != http.StatusOK || names(p) != c.want {
			t.Errorf("%s: %d %q (%s), want %q", c.q.Encode(), code, names(p), body, c.want)
		}
	}
	// A cursor inside the window.
	_, first, _ := fetch(t, srv, url.Values{"from": {ms(5)}, "to": {ms(12)}, "limit": {"3"}})
	code, p, body := fetch(t, srv, url.Values{"from": {ms(5)}, "to": {ms(12)}, "after": {first.Next}})
	if code != http.StatusOK || names(first) != "e05 e06 e07" || names(p) != "e08 e09 e10 e11" {
		t.Errorf("window pages %q then %q (%d %s)", names(first), names(p), code, body)
	}
}

// TestHandlerRejects: cursors that are not our event IDs in their one
// spelling, and bad windows and limits, are 400s with a reason.
func TestHandlerRejects(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	srv, events := handlerStore(t, t0)
	good := events[3].ID.String()
	nonCanonical := good[:len(good)-1] + "B" // spare bits set
	for _, c := range []struct {
		q    url.Values
		want string
	}{
		{url.Values{"after": {"usr_" + good[4:]}}, "missing prefix"},
		{url.Values{"after": {nonCanonical}}, "spare bits"},
		{url.Values{"after": {strconv.FormatInt(events[3].ID.Int64(), 10)}}, "after:"},
		{url.Values{"limit": {"0"}}, "limit"},
		{url.Values{"limit": {"1000"}}, "limit"},
		{url.Values{"from": {t0.Format(time.RFC3339)}}, "want both"},
		{url.Values{"from": {"2024-01-01T00:00:00Z"}, "to": {"2026-01-01T00:00:00Z"}}, "outside the range of IDs"},
		{url.Values{"from": {"2026-01-02T00:00:00Z"}, "to": {"2026-01-01T00:00:00Z"}}, "empty time range"},
	} {
		code, _, body := fetch(t, srv, c.q)
		var e struct{ Error string }
		json.Unmarshal([]byte(body), &e)
		if code != http.StatusBadRequest || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %s, want 400 with %q", c.q.Encode(), code, body, c.want)
		}
	}
}
