#!/usr/bin/env bash
# Set up and run `fabricwatch demo`: a simulated GPU-cluster fabric (gNMI switches of four
# vendor flavours, or InfiniBand under UFM with --fabric ib) watched by the daemon, writing into
# a private InfluxDB 1.x on 127.0.0.1:8086, with a live terminal view. Ctrl-C stops everything
# cleanly: the daemon flushes first, then the InfluxDB this script started is stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh influxdb

PORT=${FABRICWATCH_DEMO_INFLUX_PORT:-8086}
URL="http://127.0.0.1:$PORT"
BASE=${XDG_STATE_HOME:-$HOME/.local/state}/fabricwatch
FABRIC=roce
prev=""
for a in "$@"; do
  [[ "$prev" == "--fabric" ]] && FABRIC=$a
  [[ "$a" == --fabric=* ]] && FABRIC=${a#--fabric=}
  prev=$a
done
DB=fabricwatch
[[ "$FABRIC" == ib ]] && DB=fabricwatch_ib  # each demo its own database, state and model
mkdir -p "$BASE/demo-influxdb"
INFLUX_PID=""
stop_influx() {
  if [[ -n "$INFLUX_PID" ]]; then
    kill "$INFLUX_PID" 2>/dev/null || true
    wait "$INFLUX_PID" 2>/dev/null || true
  fi
}
if ! curl -fsS -o /dev/null "$URL/ping" 2>/dev/null; then
  cat > "$BASE/demo-influxdb/influxdb.conf" <<CONF
reporting-enabled = false
bind-address = "127.0.0.1:$((PORT + 3))"
[meta]
  dir = "$BASE/demo-influxdb/meta"
[data]
  dir = "$BASE/demo-influxdb/data"
  wal-dir = "$BASE/demo-influxdb/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:$PORT"
  log-enabled = false
CONF
  # its own session: the terminal's Ctrl-C goes to the demo, which still needs InfluxDB to flush
  setsid influxd -config "$BASE/demo-influxdb/influxdb.conf" >"$BASE/demo-influxdb/influxd.log" 2>&1 &
  INFLUX_PID=$!
  trap stop_influx EXIT
  for _ in $(seq 50); do curl -fsS -o /dev/null "$URL/ping" 2>/dev/null && break; sleep 0.2; done
fi
code=0
.venv/bin/fabricwatch demo --influx-url "$URL" --influx-db "$DB" "$@" || code=$?
if curl -fsS -o /dev/null "$URL/ping" 2>/dev/null; then
  echo "data: curl -G $URL/query --data-urlencode db=$DB --data-urlencode 'q=SHOW MEASUREMENTS'"
  [[ -n "$INFLUX_PID" ]] && echo "(the InfluxDB this script started stops now; its data stay in $BASE/demo-influxdb)"
fi
exit "$code"
