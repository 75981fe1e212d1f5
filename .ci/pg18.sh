#!/bin/bash
# Brings PostgreSQL 18 (Debian sid's postgresql-18, or the newest major version sid has when
# PG_MAJOR is unset and sid has no 18) into a folder and runs it on loopback, on a port and data
# directory of its own, beside the machine's PostgreSQL 15: for uuidv7() (new in 18) and the
# key benchmarks on the newest server (bench/cmd/dbbench -dsn). Nothing is installed: the .debs
# are fetched with a private apt state from the Debian mirror that this machine's apt sources
# name, unpacked with dpkg-deb, and every program of the server's bin directory is replaced by a
# wrapper that runs it through sid's own loader and libraries (the host's libc is older). The
# server runs as the postgres user (it refuses root), with trust authentication on 127.0.0.1.
#
#   pg18.sh fetch     # download + unpack into $PG18_DIR (default /opt/once-pg18); idempotent
#   pg18.sh start     # fetch if needed, initdb, start on 127.0.0.1:$PG18_PORT (5433), user
#                     # postgres without a password, database test; idempotent
#   pg18.sh stop
#   pg18.sh status
#   pg18.sh psql [args]   # psql of the same version on that server
#
# The server's settings can be given in $PG18_OPTS (postgres -c options, e.g.
# "-c shared_buffers=128MB"); they apply at start. Debian's unstable suite moves; the exit
# status says whether a server answers at the end.
set -uo pipefail
PG18_DIR=${PG18_DIR:-/opt/once-pg18}
PG18_PORT=${PG18_PORT:-5433}
PG18_OPTS=${PG18_OPTS:-}
PG_MAJOR=${PG_MAJOR:-18}
DATA=$PG18_DIR/data
RUN_AS=postgres

mirror() { # the archive URI from this machine's apt configuration
  local main
  main=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1)
  [[ -n $main ]] || main=$(grep -hE '^\s*deb\s' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n1)
  [[ -n $main ]] || { echo "pg18.sh: no Debian mirror found in this machine's apt sources" >&2; return 1; }
  echo "$main"
}

bindir() { ls -d "$PG18_DIR"/usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }

fetch() {
  [[ -n $(bindir) && -x $(bindir)/postgres ]] && return 0
  local main A pkgs major
  main=$(mirror) || return 1
  A=$(mktemp -d /tmp/once-pg18-apt.XXXXXX)
  mkdir -p "$A/lists/partial" "$A/archives/partial" "$PG18_DIR/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $main sid main" >"$A/sources.list"
  local APT=(-o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$A/lists" -o Dir::Cache="$A" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o APT::Architecture=amd64 -o APT::Architectures=amd64)
  apt-get "${APT[@]}" update -qq || { rm -rf "$A"; echo "pg18.sh: apt update failed" >&2; return 1; }
  major=$PG_MAJOR
  if ! apt-cache "${APT[@]}" show "postgresql-$major" >/dev/null 2>&1; then
    major=$(apt-cache "${APT[@]}" pkgnames postgresql- 2>/dev/null | grep -E '^postgresql-[0-9]+$' |
      sed 's/postgresql-//' | sort -n | tail -n1)
    [[ -n $major ]] || { rm -rf "$A"; echo "pg18.sh: sid has no postgresql-N package" >&2; return 1; }
    echo "pg18.sh: sid has no postgresql-$PG_MAJOR; using postgresql-$major, the newest it has" >&2
  fi
  # The server, its client and the libraries they load, with sid's libc; perl and Debian's
  # cluster tools (postgresql-common, which need perl and root's /etc) are left out.
  pkgs=$(apt-cache "${APT[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances --no-pre-depends "postgresql-$major" "postgresql-client-$major" 2>/dev/null |
    grep -v '^ ' | grep -v '<' |
    grep -vE '^(perl|perl-base|perl-modules-.*|libperl.*|postgresql-common.*|postgresql-client-common|ssl-cert|debconf.*|ucf|adduser|passwd|login.*|init-system-helpers|lsb-base|sysvinit-utils|tzdata|locales.*|logrotate|cron.*|systemd.*)$' |
    sort -u)
  (cd "$PG18_DIR/debs" && apt-get "${APT[@]}" download -qq $pkgs) ||
    { rm -rf "$A"; echo "pg18.sh: download failed" >&2; return 1; }
  rm -rf "$A"
  for f in "$PG18_DIR"/debs/*.deb; do dpkg-deb -x "$f" "$PG18_DIR"; done
  local bin L p
  bin=$(bindir)
  [[ -n $bin && -x $bin/postgres ]] || { echo "pg18.sh: no postgres binary after unpacking" >&2; return 1; }
  L=$PG18_DIR/usr/lib/x86_64-linux-gnu
  # Each program runs through sid's loader with sid's libraries. PostgreSQL finds its share and
  # lib directories relative to argv[0], which the loader sets to the real program, in the same
  # directory; initdb and pg_ctl start postgres by its path, so they reach the wrapper too.
  for p in "$bin"/*; do
    [[ -f $p && ! -L $p && $(basename "$p") != .* ]] || continue
    file -b "$p" | grep -q ELF || continue
    mv "$p" "$bin/.$(basename "$p").real"
    printf '#!/bin/sh\nexec "%s/ld-linux-x86-64.so.2" --library-path "%s" "%s/.%s.real" "$@"\n' \
      "$L" "$L" "$bin" "$(basename "$p")" >"$p"
    chmod 755 "$p"
  done
  chmod -R a+rX "$PG18_DIR"
}

as_pg() { runuser -u "$RUN_AS" -- "$@"; }

ping() { as_pg "$(bindir)/pg_isready" -q -h 127.0.0.1 -p "$PG18_PORT" 2>/dev/null; }

start() {
  fetch || return 1
  local bin
  bin=$(bindir)
  ping && return 0
  if [[ ! -f $DATA/PG_VERSION ]]; then
    rm -rf "$DATA"
    mkdir -p "$DATA" && chown "$RUN_AS": "$DATA" && chmod 700 "$DATA"
    as_pg "$bin/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
      >"$PG18_DIR/initdb.log" 2>&1 || { echo "pg18.sh: initdb failed; see $PG18_DIR/initdb.log" >&2; return 1; }
  fi
  mkdir -p "$PG18_DIR/run" && chown "$RUN_AS": "$PG18_DIR/run"
  touch "$PG18_DIR/server.log" && chown "$RUN_AS": "$PG18_DIR/server.log"
  # shellcheck disable=SC2086 # PG18_OPTS is a list of postgres options
  as_pg "$bin/pg_ctl" -D "$DATA" -l "$PG18_DIR/server.log" -w -t 60 start \
    -o "-p $PG18_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG18_DIR/run $PG18_OPTS" \
    >/dev/null || { echo "pg18.sh: postgres did not start; see $PG18_DIR/server.log" >&2; return 1; }
  as_pg "$bin/psql" -h 127.0.0.1 -p "$PG18_PORT" -U postgres -d postgres -Atqc \
    "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 ||
    as_pg "$bin/psql" -h 127.0.0.1 -p "$PG18_PORT" -U postgres -d postgres -qc "CREATE DATABASE test" ||
    { echo "pg18.sh: CREATE DATABASE test failed" >&2; return 1; }
  ping
}

stop() {
  [[ -f $DATA/postmaster.pid ]] || return 0
  as_pg "$(bindir)/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
}

case "${1:-start}" in
  fetch) fetch ;;
  start) start && echo "postgresql $("$(bindir)/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG18_PORT (data $DATA)" ;;
  stop) stop ;;
  status) ping && echo "postgresql on 127.0.0.1:$PG18_PORT" ;;
  psql) shift; "$(bindir)/psql" -h 127.0.0.1 -p "$PG18_PORT" -U postgres -d test "$@" ;;
  *) echo "usage: pg18.sh fetch|start|stop|status|psql" >&2; exit 2 ;;
esac
