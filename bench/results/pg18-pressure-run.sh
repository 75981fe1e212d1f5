#!/bin/bash
# The PostgreSQL 18 cache-pressure run as it was run on 2026-12-07 (BENCHMARKS.md): round 1, then
# rounds 2-3 with -walinspect and uuidv4 again; /tmp/dbbench127 = GOTOOLCHAIN=go1.27.3 go build ./cmd/dbbench.
# one process per key, so that a key that does not finish leaves the others' results
cd /work/wt/go127/bench
R=results
for k in serial once-counter once-sortable uuidv7-server std-uuidv7 uuidv4; do
  echo "== $k start $(date -u +%T)" >>$R/pg18-pressure.log
  nice -n 10 /tmp/dbbench127 -db postgres -dsn 'postgres://postgres@127.0.0.1:5433/test?sslmode=disable' \
    -rows 6000000 -readers 1 -recent 100000 -keys $k -save $R/pg18-pressure-$k.json >>$R/pg18-pressure.log 2>&1
  echo "== $k end $(date -u +%T) rc=$?" >>$R/pg18-pressure.log
done
# rounds 2 and 3 (order rotated) with -walinspect, after pass 1 (round 1) ends; then uuidv4 again
cd /work/wt/go127/bench
R=results
for f in $R/pg18-pressure-*.json; do case $f in *-r[0-9]-*) ;; *) mv "$f" "${f/pg18-pressure-/pg18-pressure-r1-}";; esac; done
keys=(serial once-counter once-sortable uuidv7-server std-uuidv7)
run() { # round key
  echo "== round $1 $2 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >>$R/pg18-pressure.log
  nice -n 10 /tmp/dbbench127 -db postgres -dsn 'postgres://postgres@127.0.0.1:5433/test?sslmode=disable' \
    -rows 6000000 -readers 1 -recent 100000 -walinspect -keys $2 -save $R/pg18-pressure-r$1-$2.json >>$R/pg18-pressure.log 2>&1
  echo "== round $1 $2 end $(date -u +%T) rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)" >>$R/pg18-pressure.log
}
for round in 2 3; do
  for i in 0 1 2 3 4; do run $round ${keys[$(( (i + round - 1) % 5 ))]}; done
done
run 2 uuidv4
