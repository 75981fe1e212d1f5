# shellcheck shell=bash
# Sourced by .ci/run before the tests: makes sure an etcd server answers on
# loopback and exports ONCE_TEST_ETCD_ENDPOINTS for lease/etcdlease, the
# fault suite and the CLI tests.
#
# The server is Debian's etcd-server package (bookworm: 3.4.23, a static Go
# binary), installed with apt-get when missing and started on
# 127.0.0.1:2379 (peer 127.0.0.1:2380) with its data in /tmp. Tests that
# restart a server start a private one on free ports; this one is shared.
# Override the address with ONCE_ETCD_CLIENT_PORT / ONCE_ETCD_PEER_PORT.
#
# Sourced: never exits, leaves the caller's shell options alone, and returns
# non-zero (failing a `set -e` caller) only when etcd cannot be made to answer.

once_etcd_ping() { # host:port — does etcd answer /health on it?
  local out
  if command -v curl >/dev/null 2>&1; then
    out=$(curl -fsS -m 2 "http://$1/health" 2>/dev/null) || return 1
  else
    out=$( (exec 3<>"/dev/tcp/${1%:*}/${1##*:}" && printf 'GET /health HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" >&3 && timeout 2 cat <&3) 2>/dev/null) || return 1
  fi
  [[ $out == *'"health":"true"'* ]]
}

once_etcd_listening() { # host:port — does anything accept connections there?
  (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null
}

once_etcd_wait() { # host:port — wait up to 10s for /health
  local i
  for i in $(seq 100); do
    once_etcd_ping "$1" && return 0
    sleep 0.1
  done
  return 1
}

once_etcd_start() {
  local client="127.0.0.1:${ONCE_ETCD_CLIENT_PORT:-2379}" peer="127.0.0.1:${ONCE_ETCD_PEER_PORT:-2380}"
  local dir="/tmp/once-etcd-${client##*:}" bin
  if once_etcd_ping "$client"; then
    echo "etcd already answering on $client"
  elif once_etcd_listening "$client"; then
    # Something listens there: an etcd still starting, or another program.
    # Never wipe or replace it; wait for it to become healthy.
    once_etcd_wait "$client" || { echo "ci: $client is taken but answers no etcd /health" >&2; return 1; }
    echo "etcd answering on $client"
  else
    bin=$(command -v etcd 2>/dev/null)
    if [[ -z $bin ]]; then
      echo "ci: installing etcd-server from Debian"
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null; } ||
        { echo "ci: apt-get install etcd-server failed" >&2; return 1; }
      bin=$(command -v etcd 2>/dev/null) || { echo "ci: etcd-server installed no etcd binary" >&2; return 1; }
    fi
    rm -rf "$dir" && mkdir -p "$dir" || return 1
    # setsid + redirections: the server outlives this script and holds none
    # of its pipes open.
    setsid "$bin" --name once-ci --data-dir "$dir/data" \
      --listen-client-urls "http://$client" --advertise-client-urls "http://$client" \
      --listen-peer-urls "http://$peer" --initial-advertise-peer-urls "http://$peer" \
      --initial-cluster "once-ci=http://$peer" --initial-cluster-state new \
      --logger zap --log-outputs "$dir/etcd.log" </dev/null >>"$dir/etcd.out" 2>&1 &
    if ! once_etcd_wait "$client"; then
      echo "ci: etcd did not answer on $client; last log lines:" >&2
      tail -n 5 "$dir/etcd.log" "$dir/etcd.out" >&2 2>/dev/null
      return 1
    fi
    echo "etcd $("$bin" --version 2>/dev/null | head -n1 | awk '{print $3}') on $client"
  fi
  export ONCE_TEST_ETCD_ENDPOINTS="$client"
}

if ! once_etcd_start; then
  unset -f once_etcd_ping once_etcd_listening once_etcd_wait once_etcd_start
  return 1
fi
unset -f once_etcd_ping once_etcd_listening once_etcd_wait once_etcd_start
