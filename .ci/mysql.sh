#!/bin/bash
# Brings Oracle MySQL (Debian sid's mysql-server-core, 9.x) into a folder and starts it on
# loopback, so that the paths taken on MySQL rather than MariaDB (no RETURNING; upserts read the
# key back with LAST_INSERT_ID) run against a real server. Nothing is installed: the .debs are
# fetched with a private apt state from the Debian mirror that this machine's apt sources name,
# unpacked with dpkg-deb, and run through sid's own loader.
#
#   mysql.sh fetch     # download + unpack into $MYSQL_DIR (default /opt/once-mysql); idempotent
#   mysql.sh start     # fetch if needed, initialize, start on 127.0.0.1:$MYSQL_PORT (3307),
#                      # user root with an empty password, database test; idempotent
#   mysql.sh stop
#   mysql.sh status
#
# MySQL exists only in Debian's unstable suite, whose versions move; the exit status says whether
# a server answers at the end.
set -uo pipefail
MYSQL_DIR=${MYSQL_DIR:-/opt/once-mysql}
MYSQL_PORT=${MYSQL_PORT:-3307}
L="$MYSQL_DIR/usr/lib/x86_64-linux-gnu"
MYSQLD=("$L/ld-linux-x86-64.so.2" --library-path "$L" "$MYSQL_DIR/usr/sbin/mysqld" --no-defaults
  --user=root --datadir="$MYSQL_DIR/data" --basedir="$MYSQL_DIR/usr"
  --lc-messages-dir="$MYSQL_DIR/usr/share/mysql")

mirror() { # the archive URI from this machine's apt configuration
  local main
  main=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1)
  [[ -n $main ]] || main=$(grep -hE '^\s*deb\s' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n1)
  [[ -n $main ]] || { echo "mysql.sh: no Debian mirror found in this machine's apt sources" >&2; return 1; }
  echo "$main"
}

fetch() {
  [[ -x $MYSQL_DIR/usr/sbin/mysqld ]] && return 0
  local main A pkgs
  main=$(mirror) || return 1
  A=$(mktemp -d /tmp/once-mysql-apt.XXXXXX)
  mkdir -p "$A/lists/partial" "$A/archives/partial" "$MYSQL_DIR/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $main sid main" >"$A/sources.list"
  local APT=(-o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$A/lists" -o Dir::Cache="$A" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o APT::Architecture=amd64 -o APT::Architectures=amd64)
  apt-get "${APT[@]}" update -qq || { rm -rf "$A"; echo "mysql.sh: apt update failed" >&2; return 1; }
  # mysqld and the libraries it loads, with sid's libc; perl (for the helper scripts) is left out.
  pkgs=$(apt-cache "${APT[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances --no-pre-depends mysql-server-core 2>/dev/null |
    grep -v '^ ' | grep -v '<' | grep -vE '^(perl|perl-base|perl-modules-.*|libperl.*)$' | sort -u)
  (cd "$MYSQL_DIR/debs" && apt-get "${APT[@]}" download -qq $pkgs) ||
    { rm -rf "$A"; echo "mysql.sh: download failed" >&2; return 1; }
  rm -rf "$A"
  for f in "$MYSQL_DIR"/debs/*.deb; do dpkg-deb -x "$f" "$MYSQL_DIR"; done
  [[ -x $MYSQL_DIR/usr/sbin/mysqld ]]
}

ping() { # a TCP connect and the version in the server's greeting, without a client binary
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$MYSQL_PORT && head -c 16 <&3 | grep -qa '[0-9]\.[0-9]'" 2>/dev/null
}

start() {
  fetch || return 1
  ping && return 0
  if [[ ! -d $MYSQL_DIR/data/mysql ]]; then
    rm -rf "$MYSQL_DIR/data"
    "${MYSQLD[@]}" --initialize-insecure --log-error="$MYSQL_DIR/init.log" ||
      { echo "mysql.sh: initialize failed; see $MYSQL_DIR/init.log" >&2; return 1; }
  fi
  echo "CREATE DATABASE IF NOT EXISTS test;" >"$MYSQL_DIR/init.sql"
  setsid "${MYSQLD[@]}" --port="$MYSQL_PORT" --bind-address=127.0.0.1 --socket="$MYSQL_DIR/mysqld.sock" \
    --mysqlx=OFF --pid-file="$MYSQL_DIR/mysqld.pid" --log-error="$MYSQL_DIR/mysqld.log" \
    --init-file="$MYSQL_DIR/init.sql" --skip-log-bin --secure-file-priv= --innodb-buffer-pool-size=128M --max-connections=500 \
    </dev/null >/dev/null 2>&1 &
  for _ in $(seq 100); do ping && break; sleep 0.2; done
  ping || { echo "mysql.sh: mysqld did not answer; see $MYSQL_DIR/mysqld.log" >&2; return 1; }
}

case "${1:-start}" in
  fetch) fetch ;;
  start) start && echo "mysql $("${MYSQLD[@]}" --version 2>/dev/null | awk '{print $3}') on 127.0.0.1:$MYSQL_PORT" ;;
  stop) [[ -f $MYSQL_DIR/mysqld.pid ]] && kill "$(cat "$MYSQL_DIR/mysqld.pid")" 2>/dev/null; true ;;
  status) ping && echo "mysql on 127.0.0.1:$MYSQL_PORT" ;;
  *) echo "usage: mysql.sh fetch|start|stop|status" >&2; exit 2 ;;
esac
