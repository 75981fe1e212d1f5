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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			require.NoError(t, run(ctx, &out, c.url(t)), "output:\n%s", out.String())
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
			if prev, ok := ids[m[2]]; ok {
				assert.Equal(t, prev, m[1], "event %s shown with two IDs", m[2])
			}
			ids[m[2]] = m[1]
		}
	}
	assert.Equal(t, []int{10, 10, 5, 7}, counts, "events per page, want 10, 10, 5 and the window's 7\n%s", out)
	var want []string
	for i := 1; i <= 25; i++ {
		want = append(want, fmt.Sprintf("%02d", i))
	}
	want = append(want, "06", "07", "08", "09", "10", "11", "12")
	assert.Equal(t, want, names, "events shown\n%s", out)
	assert.Contains(t, out, "next cursor "+ids["10"]+": the server reads row id ", "the first page's cursor is not its last event %s", ids["10"])
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
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 3, BaseKey: []byte(exampledb.DemoKey), AllowDemoKey: true, Now: c.now})
	require.NoError(t, err)
	once.DefaultBinding().Set(f)
	t.Cleanup(func() { once.DefaultBinding().Set(nil) })
	store := &Store{db: &exampledb.DB{SQL: testenv.SQLite(t), Dialect: migrations.SQLite}}
	require.NoError(t, store.Migrate(t.Context()))
	var events []Event
	for i := range 30 {
		c.set(t0.Add(time.Duration(i) * time.Millisecond))
		e, err := store.Add(t.Context(), fmt.Sprintf("e%02d", i))
		require.NoError(t, err)
		require.WithinDuration(t, c.now(), e.Created, 0, "event %d created, clock", i)
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
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	var p Page
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(b.Bytes(), &p), "%s", b.String())
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
		require.Equal(t, http.StatusOK, code, "%s: %s", q.Encode(), body)
		for _, e := range events {
			require.NotContains(t, body, strconv.FormatInt(e.ID.Int64(), 10), "page shows the stored value of %s", e.Name)
			require.NotContains(t, body, once.ID(e.ID).String(), "page shows the stored value of %s", e.Name)
		}
		for _, e := range p.Events {
			seen = append(seen, e.Name)
		}
		if p.Next == "" {
			break
		}
		require.Equal(t, p.Events[len(p.Events)-1].ID.String(), p.Next, "next is not the last event's ID")
		cursor = p.Next
	}
	var want []string
	for _, e := range events {
		want = append(want, e.Name)
	}
	assert.Equal(t, want, seen, "paged through")
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
		assert.Equal(t, http.StatusOK, code, "%s: %s", c.q.Encode(), body)
		assert.Equal(t, c.want, names(p), "%s: events", c.q.Encode())
	}
	// A cursor inside the window.
	_, first, _ := fetch(t, srv, url.Values{"from": {ms(5)}, "to": {ms(12)}, "limit": {"3"}})
	code, p, body := fetch(t, srv, url.Values{"from": {ms(5)}, "to": {ms(12)}, "after": {first.Next}})
	assert.Equal(t, http.StatusOK, code, "window, second page: %s", body)
	assert.Equal(t, "e05 e06 e07", names(first), "window, first page")
	assert.Equal(t, "e08 e09 e10 e11", names(p), "window, second page")
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
		assert.Equal(t, http.StatusBadRequest, code, "%s: %s", c.q.Encode(), body)
		assert.Contains(t, e.Error, c.want, "%s: the error", c.q.Encode())
	}
}
