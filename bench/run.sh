#!/usr/bin/env bash
# Reproduce BENCHMARKS.md: Go benchmarks (PASSES interleaved passes of the
# whole suite, so that a burst of load on a shared machine hits every
# implementation alike), dbbench at full size on PostgreSQL and MariaDB with
# charts, ormbench (inserts through GORM, bun and ent) and the target check.
# Results go to results/, charts to charts/.
#
#   ./run.sh            # everything
#   ./run.sh go         # Go benchmarks only
#   ./run.sh db         # databases only
#   ./run.sh orm        # ORM inserts only
#   ./run.sh big        # PostgreSQL at BIG_ROWS rows with a concurrent reader (not part of "all")
#   ./run.sh hot        # the NewAs hot loops: chunk timings, and callgrind instruction counts if valgrind is installed
#
# Environment: PASSES (default 3), BENCHTIME (1s), ROWS (1000000),
# WRITERS (1), REPEAT (3: dbbench and ormbench rounds), ORM_ROWS (100000:
# ormbench rows per batched configuration), ORM_ROWS_ONE (5000: per
# one-row-per-INSERT configuration), BIG_ROWS (10000000: rows per key type of
# "big"), ONCE_TEST_POSTGRES_DSN / ONCE_TEST_MYSQL_DSN.
set -euo pipefail
cd "$(dirname "$0")"
what=${1:-all}
PASSES=${PASSES:-3}
BENCHTIME=${BENCHTIME:-1s}
ROWS=${ROWS:-1000000}
WRITERS=${WRITERS:-1}
REPEAT=${REPEAT:-3}
ORM_ROWS=${ORM_ROWS:-100000}
ORM_ROWS_ONE=${ORM_ROWS_ONE:-5000}
BIG_ROWS=${BIG_ROWS:-10000000}
mkdir -p results charts

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "go: $(go version)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "results/machine-$what.txt"

if [ "$what" = all ] || [ "$what" = go ]; then
  : > results/go-bench.txt
  for i in $(seq "$PASSES"); do
    echo "== Go benchmarks, pass $i of $PASSES" >&2
    go test -count=1 -run '^$' -bench . -benchtime="$BENCHTIME" . | tee -a results/go-bench.txt >&2
  done
  if command -v benchstat >/dev/null; then
    benchstat results/go-bench.txt > results/go-benchstat.txt
  fi
fi

if [ "$what" = all ] || [ "$what" = db ]; then
  echo "== dbbench postgres, $ROWS rows" >&2
  go run ./cmd/dbbench -db postgres -rows "$ROWS" -writers "$WRITERS" -repeat "$REPEAT" \
    -svg charts/postgres.svg -save results/postgres.json | tee results/postgres.md
  echo "== dbbench mysql (MariaDB), $ROWS rows" >&2
  go run ./cmd/dbbench -db mysql -rows "$ROWS" -writers "$WRITERS" -repeat "$REPEAT" \
    -svg charts/mariadb.svg -save results/mariadb.json | tee results/mariadb.md
fi

if [ "$what" = all ] || [ "$what" = orm ]; then
  echo "== ormbench, $ORM_ROWS rows batched, $ORM_ROWS_ONE one by one" >&2
  go run ./cmd/ormbench -rows "$ORM_ROWS" -rows-one "$ORM_ROWS_ONE" -rounds "$REPEAT" \
    -svg charts/orm.svg -save results/ormbench.json 2> >(tee results/ormbench-rounds.log >&2) | tee results/ormbench.md
fi

if [ "$what" = all ] || [ "$what" = hot ]; then
  echo "== hot loops (cmd/hotloop)" >&2
  go build -o results/.hotloop ./cmd/hotloop
  results/.hotloop time 3 | tee results/hotloop-time.txt
  if command -v valgrind >/dev/null; then
    # Instructions per call: the difference of two runs' totals (3 M and
    # 1 M calls) over 2 M, which leaves out start-up. GODEBUG: callgrind
    # mishandles the runtime's preemption signals.
    for l in atomic counter64 newas new options.new; do
      for n in 1000000 3000000; do
        GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null results/.hotloop "$l" "$n" 2>&1 >/dev/null |
          sed -n 's/.*Collected : \([0-9]*\).*/\1/p' > "results/.cg.$n"
      done
      awk -v l="$l" -v a="$(cat results/.cg.1000000)" -v b="$(cat results/.cg.3000000)" \
        'BEGIN { printf "%-12s %.2f instructions per call\n", l, (b - a) / 2e6 }'
    done | tee results/hotloop-callgrind.txt
    rm -f results/.cg.*
  fi
  rm -f results/.hotloop
fi

if [ "$what" = big ]; then
  # One round: each key type's table grows past shared_buffers; one reader
  # looks rows up during the load; the INSERTs run under EXPLAIN (ANALYZE,
  # BUFFERS, WAL) for their own WAL and buffer counts. Tables are dropped
  # after each key type (disk: about 1.5 GB per table at 10 M rows).
  df -h . >> "results/machine-$what.txt"
  echo "== dbbench postgres, $BIG_ROWS rows, 1 concurrent reader" >&2
  go run ./cmd/dbbench -db postgres -rows "$BIG_ROWS" -readers 1 -explain \
    -keys once-counter,once-sortable,serial,uuidv4,uuidv7 \
    -svg charts/postgres-10m.svg -save results/postgres-10m.json | tee results/postgres-10m.md
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "results/machine-$what.txt"

[ "$what" = orm ] || [ "$what" = big ] || [ "$what" = hot ] && exit 0 # no targets to check

args=()
[ -s results/go-bench.txt ] && args+=(-go results/go-bench.txt)
[ -s results/postgres.json ] && args+=(-pg results/postgres.json)
[ -s results/mariadb.json ] && args+=(-mysql results/mariadb.json)
go run ./cmd/benchratios "${args[@]}" | tee results/targets.md
if [ -s results/go-bench.txt ]; then # the Go targets again by thread CPU time (steadier on a shared machine)
  go run ./cmd/benchratios -unit cpu-ns/op -go results/go-bench.txt | tee results/targets-cpu.md
fi
