// Package soakcheck is the soak's independent checker: it reads only the
// records the workers and the runner wrote (package soakrec) and reports
// duplicate IDs, two processes generating under one machine ID at
// overlapping times, ID ranges of successive holders of a machine ID that
// overlap, IDs emitted outside their process's lease windows, and
// liveness. It holds in memory the processes' events and one shard of the
// IDs at a time: the IDs are spilled to disk in hash shards of bounded size
// and each shard is sorted on its own.
package soakcheck

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Options tune a check.
type Options struct {
	// TempDir holds the shard files (default os.TempDir()).
	TempDir string
	// ShardBytes is the target size of one shard in memory (default 8 MiB).
	ShardBytes int64
	// Examples is how many examples of each finding to keep (default 20).
	Examples int
}

const (
	kindCounter  = 0
	kindSortable = 1
	kindOther    = 2
	entrySize    = 32
	forever      = math.MaxInt64
)

var kindNames = [...]string{"counter", "sortable", "other"}

// entry is one ID as spilled to a shard.
type entry struct {
	id      uint64
	t0, t1  int64
	proc    uint32
	machine uint16
	kind    uint8
	flags   uint8 // 1: masked
}

func (e *entry) put(b []byte) {
	binary.LittleEndian.PutUint64(b[0:], e.id)
	binary.LittleEndian.PutUint64(b[8:], uint64(e.t0))
	binary.LittleEndian.PutUint64(b[16:], uint64(e.t1))
	binary.LittleEndian.PutUint32(b[24:], e.proc)
	binary.LittleEndian.PutUint16(b[28:], e.machine)
	b[30], b[31] = e.kind, e.flags
}

func (e *entry) get(b []byte) {
	e.id = binary.LittleEndian.Uint64(b[0:])
	e.t0 = int64(binary.LittleEndian.Uint64(b[8:]))
	e.t1 = int64(binary.LittleEndian.Uint64(b[16:]))
	e.proc = binary.LittleEndian.Uint32(b[24:])
	e.machine = binary.LittleEndian.Uint16(b[28:])
	e.kind, e.flags = b[30], b[31]
}

type event struct {
	kind   string
	mid    int
	t      int64
	done   int64 // acquired, renewed: when the reply was in (0: not recorded)
	lease  int64 // acquired, renewed: the lease duration (0: not recorded)
	safe   int64 // acquired, renewed: how much of it may be used (0: not recorded)
	offset int64 // clock: the factory clock's offset from t on
	detail string
}

// proc is one process incarnation (proc name and pid).
type proc struct {
	name        string
	pid         int64
	events      []event
	first, last int64 // record times seen
	holdings    map[int][]*holding
	final       map[int]string  // last lost/released/disabled per machine ID
	grants      map[int][]grant // per machine ID, acquired and renewed events with a usable window, by send time
	clock       []event         // clock events, in order
}

// grant is a lease a process obtained: sent at sent, usable until until.
type grant struct{ sent, until int64 }

// holding is a merged window of one process under one machine ID, and
// what it emitted in it.
type holding struct {
	proc       uint32
	mid        int
	start, end int64 // end is forever while open at the end of the records
	openEnd    bool
	endKind    string
	n          [3]int64
	minT1      int64
	maxT0      int64
	minT0      int64
	minID      [3]uint64
	maxID      [3]uint64
	maxT0k     [3]int64 // maxT0 per kind
}

// Result is what a check found.
type Result struct {
	OK               bool           `json:"ok"`
	Files            int            `json:"files"`
	Lines            int64          `json:"lines"`
	IDs              int64          `json:"ids"`
	IDsByKind        map[string]int `json:"ids_by_kind"`
	Masked           int64          `json:"masked"`
	Events           int64          `json:"events"`
	EventsByKind     map[string]int `json:"events_by_kind"`
	Faults           []Fault        `json:"faults"`
	Processes        int            `json:"processes"`
	TruncatedTails   int            `json:"truncated_tails"`
	Malformed        int64          `json:"malformed"`
	MalformedExample string         `json:"malformed_example,omitempty"`

	Duplicates        int64     `json:"duplicates"`
	DuplicateExamples []Dup     `json:"duplicate_examples,omitempty"`
	Overlaps          []Overlap `json:"overlaps,omitempty"`
	RangeOverlaps     []Overlap `json:"range_overlaps,omitempty"`
	OutOfWindow       int64     `json:"out_of_window"`
	OutOfWindowEx     []Stray   `json:"out_of_window_examples,omitempty"`
	MachineMismatch   int64     `json:"machine_mismatch"`
	MachineMismatchEx []Stray   `json:"machine_mismatch_examples,omitempty"`

	// HandOffs counts the times a machine ID was taken by another worker
	// than its previous holder (a holding of one worker slot following
	// one of another); Retakes the times a new incarnation of the same
	// worker took it (a restart that reclaimed its lease or got it
	// again). HandOffsChecked counts the hand-offs and retakes whose two
	// holders both generated, which the checker verified: the new
	// holder's first counter and sortable IDs above the previous holder's
	// last ones, and its first ID generated after the previous holder's
	// last; HandOffViolations lists those that failed.
	HandOffs          int       `json:"hand_offs"`
	Retakes           int       `json:"retakes"`
	HandOffsChecked   int       `json:"hand_offs_checked"`
	HandOffViolations []Overlap `json:"hand_off_violations,omitempty"`

	// ClaimsChecked counts the claims of a machine ID (acquisitions, not
	// reclaims) checked against every other process's last lease on it;
	// EarlyClaims lists those the coordinator granted while that lease
	// still ran: the claim's reply was in before the other process's
	// renewal (or acquisition) sent at t for a lease of d could have
	// expired, t + d, although that renewal's reply was in before the
	// claim was sent, and the other process neither released the ID (a
	// released event, or a freed one logged by a second after the claim) nor
	// had it forcibly freed or released by another incarnation of its
	// worker slot since (a restarted process releases its predecessor's
	// lease, or the one it reclaimed from it). Whether or not either generated,
	// the coordinator then handed out an ID that was held.
	ClaimsChecked int       `json:"claims_checked"`
	EarlyClaims   []Overlap `json:"early_claims,omitempty"`

	// PastWindow counts the IDs whose call began after the lease they
	// were drawn under could no longer be used: past the send time of
	// the process's latest grant of that machine ID sent before the call
	// ended, plus that grant's usable part (its TTL minus the safety
	// margin), plus Slack and how far the process's factory clock was
	// behind the real one. A process resumed after a suspension longer
	// than its window, a window counted from a reply, or a missing margin
	// generates there; the coordinator may have given the ID to another
	// process by then.
	PastWindow   int64   `json:"past_window"`
	PastWindowEx []Stray `json:"past_window_examples,omitempty"`

	RunStart   int64       `json:"run_start"`
	RunEnd     int64       `json:"run_end"`
	LastFault  int64       `json:"last_fault_end,omitempty"`
	Liveness   []Liveness  `json:"liveness"`
	Recovery   float64     `json:"recovery_after_last_fault_s"`
	Unrecov    []string    `json:"not_recovered,omitempty"`
	Leaked     []Leak      `json:"leaked_machine_ids"`
	Holdings   []HoldingJS `json:"holdings"`
	Shards     int         `json:"shards"`
	SpillBytes int64       `json:"spill_bytes"`
	MaxShard   int64       `json:"max_shard_entries"`
	MaxRSS     int64       `json:"max_rss_bytes"`
	Seconds    float64     `json:"seconds"`
}

// Dup is a value emitted twice.
type Dup struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	A    Who    `json:"a"`
	B    Who    `json:"b"`
}

// Who emitted an ID, and when (Unix ns, the bracket of the call).
type Who struct {
	Proc      string `json:"proc"`
	PID       int64  `json:"pid"`
	MachineID int    `json:"machine_id"`
	T0        int64  `json:"t0"`
	T1        int64  `json:"t1"`
}

// Overlap is two holders of one machine ID that generated at overlapping
// times (Overlaps) or whose ID ranges overlap (RangeOverlaps).
type Overlap struct {
	MachineID int    `json:"machine_id"`
	Kind      string `json:"kind,omitempty"`
	A         string `json:"a"`
	B         string `json:"b"`
	Detail    string `json:"detail"`
}

// Stray is an ID that no window of its process covers, or whose machine
// bits disagree with its record.
type Stray struct {
	Who
	ID     string `json:"id"`
	Detail string `json:"detail"`
}

// Fault is a fault record, for liveness and the report.
type Fault struct {
	Fault  string `json:"fault"`
	Target string `json:"target"`
	T      int64  `json:"t"`
	End    int64  `json:"end"`
}

// Liveness is one worker slot's (all its incarnations') availability.
//
// Share, LongestOutage and Recovery come from the IDs: the run is cut in
// Bucket slices, and a slice counts as generating when the slot emitted
// an ID in it (workers draw every 10ms). HeldShare and HeldLongestOutage
// come from the lease windows (a SIGSTOPped process's window stays open).
type Liveness struct {
	Proc              string  `json:"proc"`
	Incarnations      int     `json:"incarnations"`
	Share             float64 `json:"share"`
	LongestOutage     float64 `json:"longest_outage_s"`
	Recovery          float64 `json:"recovery_after_last_fault_s"`
	HeldShare         float64 `json:"held_share"`
	HeldLongestOutage float64 `json:"held_longest_outage_s"`
	IDs               int64   `json:"ids"`
}

// Bucket is the time resolution of the ID-based liveness figures.
const Bucket = 100 * time.Millisecond

// Leak is a machine ID whose last holder did not release it.
type Leak struct {
	MachineID int    `json:"machine_id"`
	Proc      string `json:"proc"`
	PID       int64  `json:"pid"`
	Last      string `json:"last"`
}

// HoldingJS is a holding as reported (for the timeline).
type HoldingJS struct {
	Proc      string `json:"proc"`
	PID       int64  `json:"pid"`
	MachineID int    `json:"machine_id"`
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	Open      bool   `json:"open"`
	EndKind   string `json:"end_kind"`
	IDs       int64  `json:"ids"`
}

type checker struct {
	o       Options
	res     *Result
	procs   []*proc
	index   map[string]uint32
	shards  []*os.File
	writers []*bufio.Writer
	bits    uint
	counts  []int64
	minT    int64
	maxT    int64
	runS    int64
	runE    int64
	ebuf    [entrySize]byte

	lastProc []byte
	lastPID  int64
	lastIdx  uint32
	// file counts the files read so far. A process is its name and PID
	// within one file: each worker incarnation writes a file of its own,
	// and a long run can give two incarnations of a slot the same PID.
	file     int
	lastFile int

	slotOf  []int      // proc index -> slot index
	slots   []string   // slot names, sorted
	buckets [][]uint64 // per slot: bit i set when an ID was drawn in bucket i
	nb      int64
}

// ErrInput is a file the checker cannot read.
var ErrInput = errors.New("soakcheck: cannot read records")

// Check reads files and checks them.
func Check(files []string, o Options) (*Result, error) {
	start := time.Now()
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	if o.ShardBytes <= 0 {
		o.ShardBytes = 8 << 20
	}
	if o.Examples <= 0 {
		o.Examples = 20
	}
	c := &checker{o: o, res: &Result{IDsByKind: map[string]int{}, EventsByKind: map[string]int{}}, index: map[string]uint32{}, minT: forever, maxT: math.MinInt64}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInput, err)
		}
		total += st.Size()
	}
	// A record of an ID is at least ~60 bytes; an entry is 32.
	want := total / 60 * entrySize / o.ShardBytes
	c.bits = 4
	for c.bits < 12 && int64(1)<<c.bits < want {
		c.bits++
	}
	dir, err := os.MkdirTemp(o.TempDir, "soakcheck-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	n := 1 << c.bits
	c.shards = make([]*os.File, n)
	c.writers = make([]*bufio.Writer, n)
	c.counts = make([]int64, n)
	for i := range c.shards {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		c.shards[i], c.writers[i] = f, bufio.NewWriterSize(f, 16<<10)
	}
	c.res.Shards = n
	for _, f := range files {
		if err := c.read(f); err != nil {
			return nil, err
		}
		c.res.Files++
	}
	for _, w := range c.writers {
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	c.windows()
	c.setupBuckets()
	if err := c.shardPass(); err != nil {
		return nil, err
	}
	c.overlaps()
	c.handOffs()
	c.claims()
	c.liveness()
	c.res.OK = c.res.Duplicates == 0 && len(c.res.Overlaps) == 0 && len(c.res.RangeOverlaps) == 0 && len(c.res.HandOffViolations) == 0 && len(c.res.EarlyClaims) == 0 &&
		c.res.OutOfWindow == 0 && c.res.PastWindow == 0 && c.res.MachineMismatch == 0 && c.res.Malformed == 0
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.res.MaxRSS = int64(ru.Maxrss) * 1024
	}
	c.res.Seconds = time.Since(start).Seconds()
	return c.res, nil
}

func (c *checker) read(name string) error {
	c.file++
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInput, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var long []byte
	var r rec
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if err == io.EOF {
			if len(bytes.TrimSpace(line)) > 0 {
				// No newline: the tail of a process killed mid-write.
				if parse(line, &r) == nil {
					c.add(&r, line)
				} else {
					c.res.TruncatedTails++
				}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrInput, name, err)
		}
		c.res.Lines++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if parse(line[:len(line)-1], &r) != nil {
			c.res.Malformed++
			if c.res.MalformedExample == "" {
				c.res.MalformedExample = fmt.Sprintf("%s:%d: %.120s", name, c.res.Lines, line)
			}
			continue
		}
		c.add(&r, line)
	}
}

func (c *checker) procOf(r *rec) uint32 {
	if c.lastProc != nil && c.lastFile == c.file && c.lastPID == r.pid && bytes.Equal(c.lastProc, r.proc) {
		return c.lastIdx
	}
	key := strconv.Itoa(c.file) + "\x00" + string(r.proc) + "\x00" + strconv.FormatInt(r.pid, 10)
	i, ok := c.index[key]
	if !ok {
		i = c.newProc(key, r)
	}
	c.lastProc, c.lastPID, c.lastIdx, c.lastFile = append(c.lastProc[:0], r.proc...), r.pid, i, c.file
	return i
}

func (c *checker) newProc(key string, r *rec) uint32 {
	i := uint32(len(c.procs))
	c.index[key] = i
	c.procs = append(c.procs, &proc{name: string(r.proc), pid: r.pid, first: forever, last: math.MinInt64, holdings: map[int][]*holding{}, final: map[int]string{}, grants: map[int][]grant{}})
	return i
}

func (c *checker) seen(p *proc, t int64) {
	p.first, p.last = min(p.first, t), max(p.last, t)
	c.minT, c.maxT = min(c.minT, t), max(c.maxT, t)
}

func (c *checker) add(r *rec, line []byte) {
	switch {
	case r.id != nil && r.proc != nil:
		id, ok := atou(r.id)
		if !ok || !r.hasMID || r.machineID < 0 || r.machineID > 511 {
			c.malformed(line)
			return
		}
		e := entry{id: id, proc: c.procOf(r), machine: uint16(r.machineID)}
		switch string(r.kind) {
		case "", "counter":
			e.kind = kindCounter
		case "sortable":
			e.kind = kindSortable
		default:
			e.kind = kindOther
		}
		switch {
		case r.hasT0 && r.hasT1:
			e.t0, e.t1 = r.t0, r.t1
		case r.hasT:
			e.t0, e.t1 = r.t, r.t
		case e.kind == kindSortable:
			// Without times, the ID's own timestamp (default epoch).
			ms := int64(id>>22) + 1735689600000
			e.t0, e.t1 = ms*1e6, ms*1e6+999999
		default:
			c.malformed(line)
			return
		}
		if e.t0 > e.t1 {
			c.malformed(line)
			return
		}
		if r.masked {
			e.flags = 1
			c.res.Masked++
		}
		c.seen(c.procs[e.proc], e.t0)
		c.seen(c.procs[e.proc], e.t1)
		c.res.IDs++
		c.res.IDsByKind[kindNames[e.kind]]++
		s := (id*0x9E3779B97F4A7C15 ^ uint64(e.kind)*0xC2B2AE3D27D4EB4F) >> (64 - c.bits)
		e.put(c.ebuf[:])
		c.writers[s].Write(c.ebuf[:])
		c.counts[s]++
	case r.event != nil && r.proc != nil:
		if !r.hasT {
			c.malformed(line)
			return
		}
		mid := -1
		if r.hasMID {
			mid = int(r.machineID)
		}
		p := c.procs[c.procOf(r)]
		ev := event{kind: string(r.event), mid: mid, t: r.t, done: r.done, lease: r.lease, safe: r.safe, offset: r.offset, detail: string(r.detail)}
		p.events = append(p.events, ev)
		switch {
		case ev.kind == "clock":
			p.clock = append(p.clock, ev)
		case (ev.kind == "acquired" || ev.kind == "renewed") && ev.safe > 0 && mid >= 0:
			p.grants[mid] = append(p.grants[mid], grant{sent: ev.t, until: ev.t + ev.safe})
		}
		c.seen(p, r.t)
		c.res.Events++
		c.res.EventsByKind[string(r.event)]++
	case r.fault != nil:
		end := r.end
		if end == 0 {
			end = r.t
		}
		c.res.Faults = append(c.res.Faults, Fault{Fault: string(r.fault), Target: string(r.target), T: r.t, End: end})
	case r.run != nil:
		switch string(r.run) {
		case "start":
			c.runS = r.t
		case "end":
			c.runE = r.t
		}
	}
}

func (c *checker) malformed(line []byte) {
	c.res.Malformed++
	if c.res.MalformedExample == "" {
		c.res.MalformedExample = fmt.Sprintf("%.160s", line)
	}
}

// windows turns each process's events, in the order it wrote them, into
// holdings: acquired opens a window (closing any open one), renewed opens
// one when none is open (factories re-enabled after a late renewal), lost,
// released and disabled close the open one. Windows of one machine ID
// that overlap (a late renewal counted from its request) are merged.
func (c *checker) windows() {
	for pi, p := range c.procs {
		var open *holding
		var all []*holding
		closeAt := func(t int64, kind string) {
			open.end = max(t, open.start)
			open.endKind = kind
			all = append(all, open)
			open = nil
		}
		for _, ev := range p.events {
			switch ev.kind {
			case "acquired":
				if open != nil {
					closeAt(ev.t, "superseded")
				}
				open = &holding{proc: uint32(pi), mid: ev.mid, start: ev.t}
			case "renewed":
				if open != nil && open.mid != ev.mid {
					closeAt(ev.t, "superseded")
				}
				if open == nil {
					open = &holding{proc: uint32(pi), mid: ev.mid, start: ev.t}
				}
			case "lost", "released", "disabled":
				if ev.mid >= 0 {
					if prev, ok := p.final[ev.mid]; !ok || prev != "released" || ev.kind == "released" {
						p.final[ev.mid] = ev.kind
					}
				}
				if open != nil && (ev.mid < 0 || ev.mid == open.mid) {
					closeAt(ev.t, ev.kind)
				}
			}
			if ev.kind == "acquired" || ev.kind == "renewed" {
				delete(p.final, ev.mid)
			}
		}
		if open != nil {
			open.end, open.openEnd, open.endKind = forever, true, "open"
			all = append(all, open)
		}
		for _, h := range all {
			if h.mid < 0 {
				continue
			}
			p.holdings[h.mid] = append(p.holdings[h.mid], h)
		}
		for _, gs := range p.grants {
			slices.SortFunc(gs, func(a, b grant) int { return cmpI(a.sent, b.sent) })
		}
		for mid, hs := range p.holdings {
			slices.SortFunc(hs, func(a, b *holding) int { return cmpI(a.start, b.start) })
			merged := hs[:1]
			for _, h := range hs[1:] {
				last := merged[len(merged)-1]
				if h.start <= last.end {
					if h.end > last.end {
						last.end, last.openEnd, last.endKind = h.end, h.openEnd, h.endKind
					}
					continue
				}
				merged = append(merged, h)
			}
			for _, h := range merged {
				h.minT1, h.maxT0, h.minT0 = forever, math.MinInt64, forever
				for k := range h.minID {
					h.minID[k] = math.MaxUint64
				}
			}
			p.holdings[mid] = merged
		}
	}
}

func cmpI(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *checker) who(e *entry) Who {
	p := c.procs[e.proc]
	return Who{Proc: p.name, PID: p.pid, MachineID: int(e.machine), T0: e.t0, T1: e.t1}
}

// shardPass sorts each shard by (kind, id): equal neighbours are
// duplicates. Each ID is also placed in its process's window and added to
// that holding's figures.
func (c *checker) shardPass() error {
	var buf []byte
	var es []entry
	for i, f := range c.shards {
		n := c.counts[i]
		c.res.SpillBytes += n * entrySize
		c.res.MaxShard = max(c.res.MaxShard, n)
		if n == 0 {
			continue
		}
		if int64(cap(buf)) < n*entrySize {
			buf = make([]byte, n*entrySize)
			es = make([]entry, n)
		}
		buf, es = buf[:n*entrySize], es[:n]
		if _, err := f.ReadAt(buf, 0); err != nil {
			return fmt.Errorf("soakcheck: shard %d: %v", i, err)
		}
		for j := range es {
			es[j].get(buf[j*entrySize:])
		}
		slices.SortFunc(es, func(a, b entry) int {
			if a.kind != b.kind {
				return int(a.kind) - int(b.kind)
			}
			switch {
			case a.id < b.id:
				return -1
			case a.id > b.id:
				return 1
			}
			return cmpI(a.t0, b.t0)
		})
		for j := range es {
			e := &es[j]
			if j > 0 && es[j-1].kind == e.kind && es[j-1].id == e.id {
				c.res.Duplicates++
				if len(c.res.DuplicateExamples) < c.o.Examples {
					c.res.DuplicateExamples = append(c.res.DuplicateExamples, Dup{Kind: kindNames[e.kind], ID: strconv.FormatUint(e.id, 10), A: c.who(&es[j-1]), B: c.who(e)})
				}
			}
			c.place(e)
		}
	}
	return nil
}

func (c *checker) place(e *entry) {
	if e.kind != kindOther {
		if m := int((e.id >> 13) & 511); m != int(e.machine) {
			c.res.MachineMismatch++
			if len(c.res.MachineMismatchEx) < c.o.Examples {
				c.res.MachineMismatchEx = append(c.res.MachineMismatchEx, Stray{Who: c.who(e), ID: strconv.FormatUint(e.id, 10), Detail: fmt.Sprintf("the ID's machine bits say %d", m)})
			}
		}
	}
	p := c.procs[e.proc]
	hs := p.holdings[int(e.machine)]
	// The last holding that starts at or before the call ended.
	k, _ := slices.BinarySearchFunc(hs, e.t1, func(h *holding, t int64) int {
		if h.start <= t {
			return -1
		}
		return 1
	})
	if k == 0 || hs[k-1].end < e.t0 {
		c.mark(e)
		c.res.OutOfWindow++
		if len(c.res.OutOfWindowEx) < c.o.Examples {
			c.res.OutOfWindowEx = append(c.res.OutOfWindowEx, Stray{Who: c.who(e), ID: strconv.FormatUint(e.id, 10), Detail: c.nearest(p, int(e.machine), e)})
		}
		return
	}
	c.mark(e)
	c.window(p, e)
	h := hs[k-1]
	h.n[e.kind]++
	h.minT1, h.maxT0, h.minT0 = min(h.minT1, e.t1), max(h.maxT0, e.t0), min(h.minT0, e.t0)
	h.minID[e.kind], h.maxID[e.kind] = min(h.minID[e.kind], e.id), max(h.maxID[e.kind], e.id)
	h.maxT0k[e.kind] = max(h.maxT0k[e.kind], e.t0)
}

// Slack is what PastWindow allows beyond a grant's usable window besides
// the factory clock's lag: the worker records a grant's send time from the
// operation's start event, which can precede the manager's own reading by
// a scheduling delay.
const Slack = 50 * time.Millisecond

// window checks that e's call began while a grant of its process could
// still be used (see Result.PastWindow). IDs of a process that recorded
// no usable windows (older records) are not checked.
func (c *checker) window(p *proc, e *entry) {
	gs := p.grants[int(e.machine)]
	if len(gs) == 0 {
		return
	}
	// The latest grant sent before the call ended.
	k, _ := slices.BinarySearchFunc(gs, e.t1, func(g grant, t int64) int {
		if g.sent <= t {
			return -1
		}
		return 1
	})
	if k == 0 {
		return // placed in no window: OutOfWindow's business
	}
	g := gs[k-1]
	limit := g.until + int64(Slack) + lag(p, e.t0, e.t1)
	if e.t0 <= limit {
		return
	}
	c.res.PastWindow++
	if len(c.res.PastWindowEx) < c.o.Examples {
		c.res.PastWindowEx = append(c.res.PastWindowEx, Stray{Who: c.who(e), ID: strconv.FormatUint(e.id, 10),
			Detail: fmt.Sprintf("call began %v after the usable window of the grant sent at %s ended (%s)",
				time.Duration(e.t0-g.until).Round(time.Microsecond), ts(g.sent), ts(g.until))})
	}
}

// lag is how far p's factory clock may have been behind the real clock
// during a call from t0 to t1: the most negative offset in force then. A
// step is recorded just before it is made, so the offset before a step
// recorded shortly before t0 counts too.
func lag(p *proc, t0, t1 int64) int64 {
	var off, prev, at int64 // before the first clock event: no offset
	worst := int64(0)
	for _, ev := range p.clock {
		if ev.t > t1 {
			break
		}
		if ev.t <= t0 {
			prev, off, at = off, ev.offset, ev.t
			continue
		}
		worst = min(worst, ev.offset) // stepped during the call
	}
	if at != 0 && t0-at < int64(10*time.Millisecond) {
		worst = min(worst, prev)
	}
	return -min(worst, off, 0)
}

func (c *checker) nearest(p *proc, mid int, e *entry) string {
	hs := p.holdings[mid]
	if len(hs) == 0 {
		return fmt.Sprintf("the process never held machine ID %d", mid)
	}
	best, dist := hs[0], int64(forever)
	for _, h := range hs {
		d := max(h.start-e.t1, e.t0-h.end, 0)
		if d < dist {
			best, dist = h, d
		}
	}
	end := "open"
	if !best.openEnd {
		end = fmt.Sprintf("%s at %s", best.endKind, ts(best.end))
	}
	return fmt.Sprintf("drawn %s..%s; nearest window of machine ID %d: %s .. %s (%v away)", ts(e.t0), ts(e.t1), mid, ts(best.start), end, time.Duration(dist))
}

func ts(ns int64) string {
	return time.Unix(0, ns).UTC().Format("15:04:05.000000")
}

func (c *checker) name(h *holding) string {
	p := c.procs[h.proc]
	return fmt.Sprintf("%s(pid %d)", p.name, p.pid)
}

// overlaps compares the holdings of each machine ID. Two processes
// overlap when the spans in which each surely generated intersect: from
// the latest end of its first call to the earliest start of its last one.
// Successive holders (ordered by their first call) must emit increasing
// values of each kind: a later holding whose smallest value is not above
// an earlier one's largest can repeat its IDs.
func (c *checker) overlaps() {
	byMID := map[int][]*holding{}
	for _, p := range c.procs {
		for mid, hs := range p.holdings {
			for _, h := range hs {
				c.res.Holdings = append(c.res.Holdings, HoldingJS{Proc: p.name, PID: p.pid, MachineID: mid, Start: h.start, End: h.end, Open: h.openEnd, EndKind: h.endKind, IDs: h.n[0] + h.n[1] + h.n[2]})
				if h.n[0]+h.n[1]+h.n[2] > 0 {
					byMID[mid] = append(byMID[mid], h)
				}
			}
		}
	}
	slices.SortFunc(c.res.Holdings, func(a, b HoldingJS) int { return cmpI(a.Start, b.Start) })
	mids := make([]int, 0, len(byMID))
	for mid := range byMID {
		mids = append(mids, mid)
	}
	slices.Sort(mids)
	for _, mid := range mids {
		hs := byMID[mid]
		slices.SortFunc(hs, func(a, b *holding) int { return cmpI(a.minT0, b.minT0) })
		for i, a := range hs {
			for _, b := range hs[i+1:] {
				if a.proc != b.proc && a.minT1 <= a.maxT0 && b.minT1 <= b.maxT0 &&
					a.minT1 <= b.maxT0 && b.minT1 <= a.maxT0 {
					if len(c.res.Overlaps) < c.o.Examples*10 {
						c.res.Overlaps = append(c.res.Overlaps, Overlap{MachineID: mid, A: c.name(a), B: c.name(b),
							Detail: fmt.Sprintf("%s generated %s..%s, %s generated %s..%s", c.name(a), ts(a.minT1), ts(a.maxT0), c.name(b), ts(b.minT1), ts(b.maxT0))})
					}
				}
				for k := range 2 {
					if a.n[k] > 0 && b.n[k] > 0 && b.minID[k] <= a.maxID[k] {
						if len(c.res.RangeOverlaps) < c.o.Examples*10 {
							c.res.RangeOverlaps = append(c.res.RangeOverlaps, Overlap{MachineID: mid, Kind: kindNames[k], A: c.name(a), B: c.name(b),
								Detail: fmt.Sprintf("%s (first call %s) emitted %s IDs up to %d (ts %d), the later %s (first call %s) from %d (ts %d)",
									c.name(a), ts(a.minT0), kindNames[k], a.maxID[k], a.maxID[k]>>22, c.name(b), ts(b.minT0), b.minID[k], b.minID[k]>>22)})
						}
					}
				}
			}
		}
	}
}

// handOffs follows each machine ID from holder to holder (the holdings
// of every process in the order they began) and counts the changes of
// hands: to another worker slot (HandOffs) or to a new incarnation of the
// same worker (Retakes). Each change is verified against the last
// earlier holder of another process that generated under the ID: the new
// holder's first ID of each ordered kind must be above that holder's
// last one, and its first ID must have been generated after that
// holder's last one began (no overlap of the two generation windows).
func (c *checker) handOffs() {
	byMID := map[int][]*holding{}
	for _, p := range c.procs {
		for mid, hs := range p.holdings {
			byMID[mid] = append(byMID[mid], hs...)
		}
	}
	mids := make([]int, 0, len(byMID))
	for mid := range byMID {
		mids = append(mids, mid)
	}
	slices.Sort(mids)
	for _, mid := range mids {
		hs := byMID[mid]
		slices.SortFunc(hs, func(a, b *holding) int { return cmpI(a.start, b.start) })
		var prev, gen *holding // the previous holding, and the last one that generated
		for _, h := range hs {
			if prev != nil && prev.proc != h.proc {
				if c.slotName(prev) != c.slotName(h) {
					c.res.HandOffs++
				} else {
					c.res.Retakes++
				}
			}
			n := h.n[0] + h.n[1] + h.n[2]
			if n > 0 && gen != nil && gen.proc != h.proc {
				c.res.HandOffsChecked++
				c.verifyHandOff(mid, gen, h)
			}
			prev = h
			if n > 0 {
				gen = h
			}
		}
	}
}

// verifyHandOff checks that b, a later holder of machine ID mid, began
// generating after a stopped and continued a's ordered IDs.
func (c *checker) verifyHandOff(mid int, a, b *holding) {
	var bad []string
	if b.minT1 <= a.maxT0 {
		bad = append(bad, fmt.Sprintf("%s's first ID was generated by %s, before %s's last call began at %s", c.name(b), ts(b.minT1), c.name(a), ts(a.maxT0)))
	}
	for k := range 2 {
		if a.n[k] > 0 && b.n[k] > 0 && b.minID[k] <= a.maxID[k] {
			bad = append(bad, fmt.Sprintf("%s's first %s ID %d (ts %d) is not above %s's last %d (ts %d)",
				c.name(b), kindNames[k], b.minID[k], b.minID[k]>>22, c.name(a), a.maxID[k], a.maxID[k]>>22))
		}
	}
	if len(bad) > 0 && len(c.res.HandOffViolations) < c.o.Examples*10 {
		c.res.HandOffViolations = append(c.res.HandOffViolations, Overlap{MachineID: mid, Kind: "hand-off", A: c.name(a), B: c.name(b),
			Detail: strings.Join(bad, "; ")})
	}
}

// slotName is the worker slot of h's process ("w3").
func (c *checker) slotName(h *holding) string { return c.procs[h.proc].name }

func (c *checker) span() (s, e int64) {
	s, e = c.runS, c.runE
	if s == 0 {
		s = c.minT
	}
	if e == 0 {
		e = c.maxT
	}
	return s, e
}

func (c *checker) setupBuckets() {
	idx := map[string]int{}
	for _, p := range c.procs {
		if _, ok := idx[p.name]; !ok {
			idx[p.name] = 0
			c.slots = append(c.slots, p.name)
		}
	}
	slices.Sort(c.slots)
	for i, n := range c.slots {
		idx[n] = i
	}
	for _, p := range c.procs {
		c.slotOf = append(c.slotOf, idx[p.name])
	}
	s, e := c.span()
	if e > s {
		c.nb = min((e-s)/int64(Bucket)+1, 1<<26)
		for range c.slots {
			c.buckets = append(c.buckets, make([]uint64, (c.nb+63)/64))
		}
	}
}

func (c *checker) mark(e *entry) {
	if c.nb == 0 {
		return
	}
	s, _ := c.span()
	i := (e.t0 - s) / int64(Bucket)
	if i < 0 || i >= c.nb {
		return
	}
	c.buckets[c.slotOf[e.proc]][i/64] |= 1 << (i % 64)
}

// liveness measures each worker slot over the run: the share of time one
// of its incarnations held a window, its longest time without one, how
// long after the last fault it held one for good, and the machine IDs left
// unreleased.
func (c *checker) liveness() {
	s, e := c.runS, c.runE
	if s == 0 {
		s = c.minT
	}
	if e == 0 {
		e = c.maxT
	}
	if s >= e {
		return
	}
	c.res.RunStart, c.res.RunEnd = s, e
	var lastFault int64
	for _, f := range c.res.Faults {
		lastFault = max(lastFault, f.End)
	}
	c.res.LastFault = lastFault
	type iv struct{ a, b int64 }
	slots := map[string][]iv{}
	incs := map[string]int{}
	ids := map[string]int64{}
	var names []string
	for _, p := range c.procs {
		if _, ok := slots[p.name]; !ok {
			names = append(names, p.name)
			slots[p.name] = nil
		}
		incs[p.name]++
		for _, hs := range p.holdings {
			for _, h := range hs {
				end := h.end
				if h.openEnd {
					end = p.last
				}
				a, b := max(h.start, s), min(end, e)
				if a < b {
					slots[p.name] = append(slots[p.name], iv{a, b})
				}
				ids[p.name] += h.n[0] + h.n[1] + h.n[2]
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		ivs := slots[name]
		slices.SortFunc(ivs, func(x, y iv) int { return cmpI(x.a, y.a) })
		var union []iv
		for _, v := range ivs {
			if n := len(union); n > 0 && v.a <= union[n-1].b {
				union[n-1].b = max(union[n-1].b, v.b)
				continue
			}
			union = append(union, v)
		}
		var covered, gap int64
		cur := s
		for _, v := range union {
			gap = max(gap, v.a-cur)
			covered += v.b - v.a
			cur = v.b
		}
		gap = max(gap, e-cur)
		// The segment that reaches the end of the run (to within 2s: the
		// last records of a process precede its shutdown).
		reached := len(union) > 0 && union[len(union)-1].b >= e-int64(2*time.Second)
		var final int64
		if reached {
			final = union[len(union)-1].a
		}
		_ = final
		_ = reached
		l := Liveness{Proc: name, Incarnations: incs[name], HeldShare: float64(covered) / float64(e-s), HeldLongestOutage: time.Duration(gap).Seconds(), IDs: ids[name]}
		c.generated(&l, s, lastFault)
		c.res.Liveness = append(c.res.Liveness, l)
	}
	// The latest holding of each machine ID, and whether its holder
	// released it.
	type last struct {
		p *proc
		h *holding
	}
	latest := map[int]last{}
	for _, p := range c.procs {
		for mid, hs := range p.holdings {
			h := hs[len(hs)-1]
			if l, ok := latest[mid]; !ok || h.start > l.h.start {
				latest[mid] = last{p, h}
			}
		}
	}
	for mid, l := range latest {
		f, ok := l.p.final[mid]
		if !ok {
			f = "no release (process ended holding it)"
		}
		if f != "released" {
			c.res.Leaked = append(c.res.Leaked, Leak{MachineID: mid, Proc: l.p.name, PID: l.p.pid, Last: f})
		}
	}
	slices.SortFunc(c.res.Leaked, func(a, b Leak) int { return a.MachineID - b.MachineID })
	c.res.Processes = len(c.procs)
}

// generated fills the ID-based figures of slot l.Proc: the share of
// buckets with an ID, the longest run without one, and how long after
// the last fault the run of buckets with IDs that reaches the end began
// (-1: the slot was not generating at the end).
func (c *checker) generated(l *Liveness, s, lastFault int64) {
	if c.nb == 0 {
		return
	}
	k, _ := slices.BinarySearch(c.slots, l.Proc)
	bits := c.buckets[k]
	var marked, run, longest, runStart int64
	for i := range c.nb {
		if bits[i/64]&(1<<(i%64)) != 0 {
			if run > 0 || i == 0 {
				runStart = i
			}
			marked++
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	l.Share = float64(marked) / float64(c.nb)
	l.LongestOutage = (time.Duration(longest) * Bucket).Seconds()
	if lastFault == 0 {
		return
	}
	// The last 2s may be quiet: the run ends as the workers shut down.
	if run > int64(2*time.Second/Bucket) || marked == 0 {
		l.Recovery = -1
		c.res.Unrecov = append(c.res.Unrecov, l.Proc)
		return
	}
	l.Recovery = time.Duration(max(s+runStart*int64(Bucket)-lastFault, 0)).Seconds()
	c.res.Recovery = max(c.res.Recovery, l.Recovery)
}

// claims checks every claim against the other processes' leases on the
// same machine ID (see Result.EarlyClaims). Times are all on the one
// machine's real clock: the workers' clock offsets apply to their
// factories only.
func (c *checker) claims() {
	type lease struct {
		sent, done, d int64
	}
	freed := map[string][]Fault{} // forced frees by worker slot
	for _, f := range c.res.Faults {
		if f.Fault == "forcefree" {
			freed[f.Target] = append(freed[f.Target], f)
		}
	}
	// Releases by worker slot and machine ID, from every incarnation: a
	// restarted process releases its predecessor's lease from the state
	// file when it does not reclaim it, or after a reclaim that outlived
	// its deadline (freed). A release that failed with its outcome
	// unknown (release-failed, at its sending) may have been applied.
	type slotID struct {
		slot string
		mid  int
	}
	type release struct {
		t      int64
		failed bool // release-failed: t is when it was sent
	}
	releases := map[slotID][]release{}
	for _, p := range c.procs {
		for _, e := range p.events {
			if e.kind == "released" || e.kind == "freed" || e.kind == "release-failed" {
				k := slotID{p.name, e.mid}
				releases[k] = append(releases[k], release{e.t, e.kind == "release-failed"})
			}
		}
	}
	for bi, b := range c.procs {
		for _, cl := range b.events {
			if cl.kind != "acquired" || cl.done == 0 || cl.detail == "reclaim" {
				continue
			}
			c.res.ClaimsChecked++
			for ai, a := range c.procs {
				if ai == bi {
					continue
				}
				// a's last lease on the ID whose reply was in before the
				// claim was sent, and whether a released it since.
				var last lease
				released := false
				for _, e := range a.events {
					if e.mid != cl.mid {
						continue
					}
					switch {
					case (e.kind == "acquired" || e.kind == "renewed") && e.done != 0 && e.done < cl.t:
						last, released = lease{e.t, e.done, e.lease}, false
					case e.kind == "released" && last.d != 0 && e.t >= last.sent:
						released = true
					case e.kind == "freed" && last.d != 0 && e.t >= last.sent && e.t <= cl.done+int64(time.Second):
						// A release after an abandoned call, logged
						// when its reply was in.
						released = true
					case e.kind == "release-failed" && last.d != 0 && e.t >= last.sent && e.t <= cl.done:
						// Sent before the grant, outcome unknown: the
						// coordinator may have applied it (a session
						// killed after the request).
						released = true
					}
				}
				if last.d == 0 || released {
					continue
				}
				taken := false
				for _, r := range releases[slotID{a.name, cl.mid}] {
					// By a later incarnation, logged by a second after
					// the claim (or, outcome unknown, sent before it).
					end := cl.done + int64(time.Second)
					if r.failed {
						end = cl.done
					}
					taken = taken || r.t >= last.sent && r.t <= end
				}
				if taken {
					continue
				}
				expiry := last.sent + last.d
				if cl.done >= expiry-int64(2*time.Millisecond) {
					continue
				}
				forced := false
				for _, f := range freed[a.name] {
					forced = forced || f.T >= last.sent && f.T <= cl.done
				}
				if forced {
					continue
				}
				if len(c.res.EarlyClaims) < c.o.Examples*10 {
					c.res.EarlyClaims = append(c.res.EarlyClaims, Overlap{MachineID: cl.mid, Kind: "claim", A: c.procName(a), B: c.procName(b),
						Detail: fmt.Sprintf("%s's claim was granted by %s, %v before %s's lease (sent %s, %v) could expire at %s",
							c.procName(b), ts(cl.done), time.Duration(expiry-cl.done), c.procName(a), ts(last.sent), time.Duration(last.d), ts(expiry))})
				}
			}
		}
	}
}

func (c *checker) procName(p *proc) string { return fmt.Sprintf("%s(pid %d)", p.name, p.pid) }
