#!/usr/bin/env bash
# Set up and run `fabricwatch demo`: a simulated GPU-cluster fabric (gNMI switches of four
# vendor flavours) watched by the daemon, writing into a private InfluxDB 1.x on
# 127.0.0.1:8086, with a live terminal view. Ctrl-C stops everything cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh influxdb

STATE=${XDG_STATE_HOME:-$HOME/.local/state}/fabricwatch/demo
mkdir -p "$STATE/influxdb"
INFLUX_PID=""
if ! curl -fsS -o /dev/null http://127.0.0.1:8086/ping 2>/dev/null; then
  cat > "$STATE/influxdb/influxdb.conf" <<CONF
reporting-enabled = false
bind-address = "127.0.0.1:8089"
[meta]
  dir = "$STATE/influxdb/meta"
[data]
  dir = "$STATE/influxdb/data"
  wal-dir = "$STATE/influxdb/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:8086"
  log-enabled = false
CONF
  influxd -config "$STATE/influxdb/influxdb.conf" >"$STATE/influxdb/influxd.log" 2>&1 &
  INFLUX_PID=$!
  trap '[[ -n "$INFLUX_PID" ]] && kill "$INFLUX_PID" 2>/dev/null; wait 2>/dev/null || true' EXIT
  for _ in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:8086/ping 2>/dev/null && break; sleep 0.2; done
fi
.venv/bin/fabricwatch demo --state-dir "$STATE" "$@"
echo "data: curl -G http://127.0.0.1:8086/query --data-urlencode db=fabricwatch --data-urlencode 'q=SHOW MEASUREMENTS'"
