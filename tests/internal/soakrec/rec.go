// Package soakrec writes the soak's records: newline-delimited JSON, one
// object per emitted ID and one per lease event, in the order they happen
// in the writing process. soakcheck reads them back.
//
// An ID record:
//
//	{"proc":"w3","pid":4242,"machine_id":17,"kind":"sortable","id":"254217432908980224","t0":...,"t1":...}
//
// id is the unmasked value as a decimal string; "masked":true says the
// service handed out its masked form (the record keeps the value the
// checker compares). t0 and t1 (Unix ns, the real clock) bracket the call
// that drew it.
//
// An event record:
//
//	{"proc":"w3","pid":4242,"machine_id":17,"event":"acquired","t":...}
//
// with event one of acquired, renewed, lost, released, disabled, freed.
// acquired and renewed carry the time the request was sent (the earliest
// moment the lease can be counted from), and, written by [Writer.Lease],
// "done", when the reply was in (no later than the end event), "lease",
// the lease duration granted (ns), and "safe", how long after the request
// the process may generate under it by the documented rule (the granted
// lease minus the manager's safety margin); lost, released and disabled
// the time they were observed, after the factories stopped.
//
// A clock event ({"event":"clock","t":...,"offset":-250000000}) says the
// process's factory clock runs offset ns from the real clock from t on
// (written at start when the offset is not 0, and at every step).
//
// The runner adds fault records ({"fault":"sigkill","target":"w2","t":...,
// "end":...}) and run records ({"run":"start"|"end","t":...}); the checker
// uses them for liveness only.
package soakrec

import (
	"bufio"
	"io"
	"strconv"
	"sync"
	"time"
)

// Event kinds.
const (
	Acquired = "acquired"
	Renewed  = "renewed"
	Lost     = "lost"
	Released = "released"
	Disabled = "disabled"
	Clock    = "clock"
	// Freed: the process gave a lease back outside its manager's
	// goroutine (after a call that outlived its deadline returned); the
	// lease may be an old one of an ID it holds again.
	Freed = "freed"
	// ReleaseFailed: a release the manager sent (at the event's time)
	// failed with an error whose outcome is unknown, such as a connection
	// cut after the request: the coordinator may have applied it.
	ReleaseFailed = "release-failed"
)

// Writer appends records to w through one buffer, flushed every
// FlushEvery by its own goroutine and by Flush: a SIGKILL loses at most
// that much of the tail (and possibly leaves a partial last line, which the
// checker ignores). It is safe for concurrent use; records appear in the
// order their calls took the lock.
type Writer struct {
	mu   sync.Mutex
	bw   *bufio.Writer
	buf  []byte
	head []byte // `{"proc":"w3","pid":4242,`
	err  error
	stop chan struct{}
	done chan struct{}
}

// FlushEvery is how often a Writer's buffer reaches the file.
const FlushEvery = 50 * time.Millisecond

// NewWriter returns a Writer of records for proc (with this pid).
func NewWriter(w io.Writer, proc string, pid int) *Writer {
	head := []byte(`{"proc":`)
	head = strconv.AppendQuote(head, proc)
	head = append(head, `,"pid":`...)
	head = strconv.AppendInt(head, int64(pid), 10)
	head = append(head, ',')
	rw := &Writer{bw: bufio.NewWriterSize(w, 1<<16), head: head, stop: make(chan struct{}), done: make(chan struct{})}
	go rw.flusher()
	return rw
}

func (w *Writer) flusher() {
	defer close(w.done)
	t := time.NewTicker(FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.Flush()
		}
	}
}

// ID records one emitted ID.
func (w *Writer) ID(machineID int, kind string, masked bool, id uint64, t0, t1 time.Time) {
	w.mu.Lock()
	b := append(w.buf[:0], w.head...)
	b = append(b, `"machine_id":`...)
	b = strconv.AppendInt(b, int64(machineID), 10)
	b = append(b, `,"kind":"`...)
	b = append(b, kind...)
	b = append(b, `","id":"`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, '"')
	if masked {
		b = append(b, `,"masked":true`...)
	}
	b = append(b, `,"t0":`...)
	b = strconv.AppendInt(b, t0.UnixNano(), 10)
	b = append(b, `,"t1":`...)
	b = strconv.AppendInt(b, t1.UnixNano(), 10)
	b = append(b, "}\n"...)
	w.write(b)
	w.mu.Unlock()
}

// Event records a lease event at t.
func (w *Writer) Event(machineID int, event string, t time.Time, detail string) {
	w.event(machineID, event, t, 0, 0, 0, detail)
}

// Lease writes an acquired or renewed event: the request was sent at
// sent, its reply was in by done, for a lease of d, of which safe may be
// used.
func (w *Writer) Lease(machineID int, event string, sent, done time.Time, d, safe time.Duration, detail string) {
	w.event(machineID, event, sent, done.UnixNano(), int64(d), int64(safe), detail)
}

// ClockOffset writes a clock event: from t on the factory clock runs
// offset from the real clock.
func (w *Writer) ClockOffset(t time.Time, offset time.Duration) {
	w.mu.Lock()
	b := append(w.buf[:0], w.head...)
	b = append(b, `"machine_id":-1,"event":"clock","t":`...)
	b = strconv.AppendInt(b, t.UnixNano(), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(offset), 10)
	b = append(b, "}\n"...)
	w.write(b)
	w.mu.Unlock()
}

// event writes an event record; done, lease and safe only when done is
// not 0.
func (w *Writer) event(machineID int, event string, t time.Time, done, lease, safe int64, detail string) {
	w.mu.Lock()
	b := append(w.buf[:0], w.head...)
	b = append(b, `"machine_id":`...)
	b = strconv.AppendInt(b, int64(machineID), 10)
	b = append(b, `,"event":"`...)
	b = append(b, event...)
	b = append(b, `","t":`...)
	b = strconv.AppendInt(b, t.UnixNano(), 10)
	if done != 0 {
		b = append(b, `,"done":`...)
		b = strconv.AppendInt(b, done, 10)
		b = append(b, `,"lease":`...)
		b = strconv.AppendInt(b, lease, 10)
		b = append(b, `,"safe":`...)
		b = strconv.AppendInt(b, safe, 10)
	}
	if detail != "" {
		b = append(b, `,"detail":`...)
		b = strconv.AppendQuote(b, detail)
	}
	b = append(b, "}\n"...)
	w.write(b)
	w.mu.Unlock()
}

func (w *Writer) write(b []byte) {
	w.buf = b
	if w.err == nil {
		_, w.err = w.bw.Write(b)
	}
}

// Flush writes the buffer out.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	return w.err
}

// Close stops the flusher and flushes.
func (w *Writer) Close() error {
	close(w.stop)
	<-w.done
	return w.Flush()
}

// Line is a record the runner writes in full (faults, run marks).
func Line(fields ...any) []byte {
	b := []byte{'{'}
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, fields[i].(string))
		b = append(b, ':')
		switch v := fields[i+1].(type) {
		case string:
			b = strconv.AppendQuote(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case bool:
			b = strconv.AppendBool(b, v)
		case time.Time:
			b = strconv.AppendInt(b, v.UnixNano(), 10)
		default:
			b = append(b, "null"...)
		}
	}
	return append(b, "}\n"...)
}
