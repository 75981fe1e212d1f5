package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"
)

// gen writes a synthetic clean record of n IDs (8 processes, counter and
// sortable alternately, one window each, renewed every million IDs), to
// measure the checker on volumes a soak run does not reach.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int64("n", 10_000_000, "IDs to write")
	out := fs.String("o", "gen.jsonl", "output file")
	dup := fs.Bool("dup", false, "plant one duplicate near the end")
	fs.Parse(args)
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	const procs = 8
	start := time.Now().Add(-24 * time.Hour).UnixNano()
	const epochMS = 1735689600000
	per := *n / procs
	step := int64(time.Microsecond)
	var b []byte
	head := func(p int) []byte {
		b = append(b[:0], `{"proc":"w`...)
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, `","pid":`...)
		b = strconv.AppendInt(b, int64(1000+p), 10)
		b = append(b, `,"machine_id":`...)
		b = strconv.AppendInt(b, int64(p), 10)
		return b
	}
	ev := func(p int, kind string, t int64) {
		b = head(p)
		b = append(b, `,"event":"`...)
		b = append(b, kind...)
		b = append(b, `","t":`...)
		b = strconv.AppendInt(b, t, 10)
		b = append(b, "}\n"...)
		w.Write(b)
	}
	for p := range procs {
		ev(p, "acquired", start)
	}
	ctr := make([]uint64, procs)
	for p := range procs {
		ctr[p] = uint64(start/1e6-epochMS)<<22 | uint64(p)<<13
	}
	var last [procs]uint64
	for i := int64(0); i < per; i++ {
		t := start + (i+1)*step
		for p := range procs {
			var id uint64
			kind := "counter"
			if i%2 == 0 {
				id = ctr[p]
				ctr[p]++
				if ctr[p]&8191 == 0 { // the count carries into the timestamp
					ctr[p] += 1<<22 - 1<<13
				}
			} else {
				kind = "sortable"
				ms := t / 1e6
				if v := uint64(ms-epochMS)<<22 | uint64(p)<<13; v > last[p] {
					last[p] = v
				} else {
					last[p]++ // 500 a ms at most: the count stays below 8192
				}
				id = last[p]
			}
			if *dup && p == 1 && i == per-3 {
				id = uint64(start/1e6-epochMS)<<22 | uint64(p)<<13 // the first counter value again
				kind = "counter"
			}
			b = head(p)
			b = append(b, `,"kind":"`...)
			b = append(b, kind...)
			b = append(b, `","id":"`...)
			b = strconv.AppendUint(b, id, 10)
			b = append(b, `","t0":`...)
			b = strconv.AppendInt(b, t, 10)
			b = append(b, `,"t1":`...)
			b = strconv.AppendInt(b, t+500, 10)
			b = append(b, "}\n"...)
			w.Write(b)
			if i > 0 && i%1_000_000 == 0 {
				ev(p, "renewed", t)
			}
		}
	}
	end := start + (per+2)*step
	for p := range procs {
		ev(p, "released", end)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "soak gen: %d IDs in %s\n", per*procs, *out)
	return nil
}
