#!/usr/bin/env bash
# Set up everything the test suite needs (real InfluxDB 1.x, VictoriaMetrics, Mosquitto, Prometheus,
# Alertmanager, etcd, net-snmp's snmpd and tools, snmp_exporter, infiniband-diags, headless Chromium
# for the fabric page, and Slurm (slurmctld, slurmd, slurmrestd, its clients, the JWT auth plugin slurmrestd
# needs (not pulled in without recommends) and munge) from Debian)
# and run it: lint, type check, the import layers, unit, integration and end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh influxdb victoria-metrics mosquitto systemd prometheus prometheus-alertmanager etcd-server etcd-client \
  snmpd snmp prometheus-snmp-exporter infiniband-diags chromium slurmctld slurmd slurm-client slurmrestd \
  slurm-wlm-jwt-plugin munge
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
exec .venv/bin/pytest "$@"
