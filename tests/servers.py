"""Real servers started by the tests on 127.0.0.1, with free ports and temporary data dirs."""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def require(binary: str) -> str:
    """The path of a server binary; a missing one fails the test (CI must install it)."""
    path = shutil.which(binary) or (f"/usr/bin/{binary}" if os.path.exists(f"/usr/bin/{binary}") else None)
    if path is None:
        raise RuntimeError(f"{binary} is not installed: run scripts/test.sh (it installs the servers)")
    return path


def terminate(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop a server child: SIGTERM, then SIGKILL after 10 s. Returns None for `self.proc = ...`."""
    if proc is not None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_http(url: str, timeout: float = 30.0, ok: tuple[int, ...] = (200, 204)) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status in ok:
                    return
        except Exception as exc:
            last = exc
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up: {last}")


class Server:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.workdir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        raise NotImplementedError

    def health_url(self) -> str:
        raise NotImplementedError

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        _wait_http(self.health_url())

    def stop(self) -> None:
        self.proc = terminate(self.proc)


class InfluxDB1(Server):
    """InfluxDB 1.x (Debian's influxdb, 1.6.7): v1 /write and InfluxQL /query."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.rpc_port = free_port()
        self.conf = self.workdir / "influxdb.conf"
        d = self.workdir
        self.conf.write_text(f"""
reporting-enabled = false
bind-address = "127.0.0.1:{self.rpc_port}"
[meta]
  dir = "{d}/meta"
[data]
  dir = "{d}/data"
  wal-dir = "{d}/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  enabled = true
  bind-address = "127.0.0.1:{self.port}"
  log-enabled = false
[continuous_queries]
  enabled = false
""")

    def command(self) -> list[str]:
        return [require("influxd"), "-config", str(self.conf)]

    def health_url(self) -> str:
        return f"{self.url}/ping"

    def query(self, q: str, db: str | None = None) -> dict:
        params = {"q": q, "epoch": "ns"}
        if db:
            params["db"] = db
        data = urllib.parse.urlencode(params).encode()
        with urllib.request.urlopen(f"{self.url}/query", data=data, timeout=30) as resp:
            return json.loads(resp.read())

    def create_db(self, db: str) -> None:
        self.query(f'CREATE DATABASE "{db}"')

    def series_points(self, db: str, measurement: str) -> dict[tuple[str, str, int], dict]:
        """(device, port, ts_ns) -> fields of every point of a measurement."""
        res = self.query(f'SELECT *::field FROM "{measurement}" GROUP BY "device", "port"', db)
        out: dict[tuple[str, str, int], dict] = {}
        for result in res.get("results", []):
            for s in result.get("series", []) or []:
                cols = s["columns"]
                for row in s["values"]:
                    rec = dict(zip(cols, row, strict=True))
                    ts = rec.pop("time")
                    fields = {k: v for k, v in rec.items() if v is not None}
                    out[(s["tags"]["device"], s["tags"]["port"], ts)] = fields
        return out


class VictoriaMetrics(Server):
    """VictoriaMetrics: accepts the InfluxDB v2 write API; read back with /api/v1/export."""

    def command(self) -> list[str]:
        return [
            require("victoria-metrics"),
            f"-storageDataPath={self.workdir / 'data'}",
            f"-httpListenAddr=127.0.0.1:{self.port}",
            "-retentionPeriod=100y",
            "-search.disableCache",
            # queries see points at once (by default the newest 30 s are hidden as possibly incomplete)
            "-search.latencyOffset=0s",
        ]

    def health_url(self) -> str:
        return f"{self.url}/health"

    def flush(self) -> None:
        urllib.request.urlopen(f"{self.url}/internal/force_flush", timeout=10).read()

    def export(self, match: str) -> list[dict]:
        q = urllib.parse.urlencode({"match[]": match})
        with urllib.request.urlopen(f"{self.url}/api/v1/export?{q}", timeout=30) as resp:
            return [json.loads(line) for line in resp.read().splitlines() if line.strip()]


class Mosquitto(Server):
    """A real MQTT broker (Debian's mosquitto) on 127.0.0.1, anonymous, no persistence."""

    def __init__(self, workdir: Path, tls: tuple[Path, Path] | None = None) -> None:
        """`tls`: (certificate, key) to serve MQTT over TLS only."""
        super().__init__(workdir)
        self.conf = self.workdir / "mosquitto.conf"
        text = f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        if tls is not None:  # as root mosquitto would drop to its own user, which cannot read the test's files
            text += f"certfile {tls[0]}\nkeyfile {tls[1]}\nuser root\n"
        self.conf.write_text(text)

    def command(self) -> list[str]:
        path = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not os.path.exists(path):
            raise RuntimeError("mosquitto is not installed: run scripts/test.sh (it installs the servers)")
        return [path, "-c", str(self.conf)]

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"mosquitto did not listen on {self.port}")


class Prometheus(Server):
    """A real Prometheus scraping the given targets with the given rule files."""

    def __init__(self, workdir: Path, targets: list[str], rule_files: list[Path], alertmanager: str | None) -> None:
        super().__init__(workdir)
        am = ""
        if alertmanager:
            am = f"alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['{alertmanager}']\n"
        rules = "".join(f"  - {p}\n" for p in rule_files)
        self.conf = self.workdir / "prometheus.yml"
        self.conf.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n{rules}{am}"
            "scrape_configs:\n  - job_name: fabricwatch\n    static_configs:\n"
            f"      - targets: {json.dumps(targets)}\n"
        )

    def command(self) -> list[str]:
        return [require("prometheus"), f"--config.file={self.conf}", f"--storage.tsdb.path={self.workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}"]

    def health_url(self) -> str:
        return f"{self.url}/-/ready"

    def query(self, q: str) -> list[dict]:
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': q})}",
                                    timeout=30) as resp:
            return json.loads(resp.read())["data"]["result"]


class PrometheusReceiver(Server):
    """A real Prometheus taking remote write at /api/v1/write (--web.enable-remote-write-receiver), scraping
    nothing but `scrape` (host:port, every second). `out_of_order` sets storage.tsdb.out_of_order_time_window
    (e.g. "30d"): older samples admitted."""

    def __init__(self, workdir: Path, out_of_order: str | None = None, scrape: list[str] | None = None) -> None:
        super().__init__(workdir)
        self.conf = self.workdir / "prometheus.yml"
        tsdb = f"storage:\n  tsdb:\n    out_of_order_time_window: {out_of_order}\n" if out_of_order else ""
        jobs = ("scrape_configs:\n  - job_name: fabricwatch\n    scrape_interval: 1s\n    static_configs:\n"
                f"      - targets: {json.dumps(scrape)}\n") if scrape else ""
        self.conf.write_text(f"global:\n  scrape_interval: 15s\n{tsdb}{jobs}")

    @property
    def write_url(self) -> str:
        return f"{self.url}/api/v1/write"

    def command(self) -> list[str]:
        return [require("prometheus"), f"--config.file={self.conf}", f"--storage.tsdb.path={self.workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}", "--web.enable-remote-write-receiver"]

    def health_url(self) -> str:
        return f"{self.url}/-/ready"

    def query(self, q: str, at: float | None = None) -> list[dict]:
        """An instant query; `at` (unix seconds) for samples older than the 5-minute look-back."""
        params = {"query": q, **({"time": repr(at)} if at is not None else {})}
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{urllib.parse.urlencode(params)}", timeout=30) as resp:
            return json.loads(resp.read())["data"]["result"]

    def samples(self, match: str, at: float, window_s: int = 3600) -> dict[tuple[tuple[str, str], ...], list]:
        """The raw samples of `match` in the window_s before `at`: {sorted labels: [[t, "v"], ...]}."""
        results = self.query(f"{match}[{window_s}s]", at=at)
        return {tuple(sorted(r["metric"].items())): r["values"] for r in results}


class Alertmanager(Server):
    def __init__(self, workdir: Path, webhook: str) -> None:
        super().__init__(workdir)
        self.conf = self.workdir / "alertmanager.yml"
        self.conf.write_text(
            "route:\n  receiver: hook\n  group_by: [alertname, device]\n  group_wait: 1s\n"
            "  group_interval: 1s\n  repeat_interval: 1h\n"
            f"receivers:\n  - name: hook\n    webhook_configs:\n      - url: {webhook}\n        send_resolved: true\n"
        )

    def command(self) -> list[str]:
        binary = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
        if binary is None:
            raise RuntimeError("alertmanager is not installed: run scripts/test.sh")
        return [binary, f"--config.file={self.conf}", f"--storage.path={self.workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}", "--cluster.listen-address="]

    def health_url(self) -> str:
        return f"{self.url}/-/ready"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_snmp(port: int, community: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60.0) -> None:
    """Poll sysUpTime with net-snmp's snmpget until the agent answers."""
    snmpget = require("snmpget")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"SNMP agent exited ({proc.returncode}): {log.read_text()[-2000:]}")
        res = subprocess.run([snmpget, "-v2c", "-c", community, "-t", "0.5", "-r", "0", "-On",
                              f"127.0.0.1:{port}", "1.3.6.1.2.1.1.3.0"], capture_output=True)
        if res.returncode == 0:
            return
        time.sleep(0.2)
    raise RuntimeError(f"SNMP agent on {port} did not answer: {log.read_text()[-2000:]}")


# snmpsim drops root privileges; modules imported lazily afterwards would be unreadable
_SNMPSIM_WRAPPER = """\
import dbm.dumb, encodings.latin_1, encodings.utf_8, encodings.ascii, sys
from snmpsim.commands.responder import main
sys.exit(main())
"""


class SnmpSim:
    """snmpsim serving .snmprec recordings (file name = community) on 127.0.0.1."""

    def __init__(self, recordings: list[Path]) -> None:
        import sys
        import tempfile

        # under /tmp with open permissions: snmpsim runs as nobody after dropping root
        self.workdir = Path(tempfile.mkdtemp(prefix="fw-snmpsim-"))
        self.workdir.chmod(0o755)
        self.data = self.workdir / "data"
        self.data.mkdir()
        for rec in recordings:
            shutil.copy(rec, self.data / rec.name)
        self.cache = self.workdir / "cache"
        self.cache.mkdir()
        for d in (self.data, self.cache):
            d.chmod(0o777)
        self.wrapper = self.workdir / "responder.py"
        self.wrapper.write_text(_SNMPSIM_WRAPPER)
        self.python = sys.executable
        self.port = free_udp_port()
        self.log = self.workdir / "snmpsim.log"
        self.communities = [r.stem for r in recordings]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [self.python, str(self.wrapper), f"--data-dir={self.data}", f"--cache-dir={self.cache}",
               f"--agent-udpv4-endpoint=127.0.0.1:{self.port}"]
        if os.geteuid() == 0:
            cmd += ["--process-user=nobody", "--process-group=nogroup"]
            os.chown(self.cache, 65534, 65534)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        _wait_snmp(self.port, self.communities[0], self.proc, self.log)

    def stop(self) -> None:
        self.proc = terminate(self.proc)
        shutil.rmtree(self.workdir, ignore_errors=True)


class Snmpd:
    """Debian's net-snmp agent serving this host's interfaces: a v2c community and a v3 authPriv user."""

    COMMUNITY = "fw-test-ro"
    USER = "fwuser"
    AUTH_KEY = "fw-auth-passphrase"
    PRIV_KEY = "fw-priv-passphrase"

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_udp_port()
        self.conf = self.workdir / "snmpd.conf"
        self.conf.write_text(
            f"rocommunity {self.COMMUNITY} 127.0.0.1\n"
            f'createUser {self.USER} SHA-256 "{self.AUTH_KEY}" AES "{self.PRIV_KEY}"\n'
            f"rouser {self.USER} priv\n"
        )
        self.log = self.workdir / "snmpd.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        snmpd = shutil.which("snmpd") or "/usr/sbin/snmpd"
        if not os.path.exists(snmpd):
            raise RuntimeError("snmpd is not installed: run scripts/test.sh (it installs the servers)")
        env = {**os.environ, "SNMP_PERSISTENT_DIR": str(self.workdir), "MIBS": ""}
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [snmpd, "-f", "-Lo", "-C", "-c", str(self.conf), "-p", str(self.workdir / "snmpd.pid"),
                 f"udp:127.0.0.1:{self.port}"], stdout=log, stderr=subprocess.STDOUT, env=env)
        _wait_snmp(self.port, self.COMMUNITY, self.proc, self.log)

    def stop(self) -> None:
        self.proc = terminate(self.proc)


class EtcdCluster:
    """A real etcd cluster (Debian's etcd-server) of `size` members on 127.0.0.1, one process and
    data dir each; members can be killed and started again (same data dir: they rejoin)."""

    def __init__(self, workdir: Path, size: int = 3, tls: tuple[Path, Path] | None = None,
                 extra: tuple[str, ...] = ()) -> None:
        """`tls`: (certificate, key) to serve clients over TLS only (https:// endpoints); `extra`:
        more flags for every member."""
        self.workdir, self.tls, self.extra = workdir, tls, extra
        self.scheme = "https" if tls else "http"
        self.names = [f"n{i}" for i in range(1, size + 1)]
        self.client = {n: free_port() for n in self.names}
        self.peer = {n: free_port() for n in self.names}
        self.procs: dict[str, subprocess.Popen[bytes] | None] = dict.fromkeys(self.names)

    @property
    def endpoints(self) -> list[str]:
        return [f"{self.scheme}://127.0.0.1:{self.client[n]}" for n in self.names]

    def command(self, name: str) -> list[str]:
        cluster = ",".join(f"{n}=http://127.0.0.1:{self.peer[n]}" for n in self.names)
        tls = ["--cert-file", str(self.tls[0]), "--key-file", str(self.tls[1])] if self.tls else []
        return [require("etcd"), "--name", name, "--data-dir", str(self.workdir / name), *tls,
                "--listen-client-urls", f"{self.scheme}://127.0.0.1:{self.client[name]}",
                "--advertise-client-urls", f"{self.scheme}://127.0.0.1:{self.client[name]}",
                "--listen-peer-urls", f"http://127.0.0.1:{self.peer[name]}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.peer[name]}",
                "--initial-cluster", cluster, "--initial-cluster-state", "new",
                "--initial-cluster-token", f"fw-test-{self.client[self.names[0]]}",
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--log-level", "warn", *self.extra]

    def start_member(self, name: str) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        with open(self.workdir / f"{name}.log", "ab") as log:
            self.procs[name] = subprocess.Popen(self.command(name), stdout=log, stderr=subprocess.STDOUT)

    def start(self) -> None:
        for n in self.names:
            self.start_member(n)
        self.wait_healthy()

    def wait_healthy(self, timeout: float = 60.0) -> None:
        """Until a member that runs says the cluster has a leader (a quorum)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for n in self.names:
                if self.procs[n] is None:
                    continue
                try:
                    ctx = ssl.create_default_context(cafile=str(self.tls[0])) if self.tls else None
                    with urllib.request.urlopen(f"{self.scheme}://127.0.0.1:{self.client[n]}/health", timeout=2,
                                                context=ctx) as resp:
                        if json.loads(resp.read()).get("health") == "true":
                            return
                except Exception:
                    pass
            time.sleep(0.2)
        raise RuntimeError("etcd cluster did not become healthy")

    def etcdctl(self, *args: str, user: str | None = None) -> str:
        opts = ["--cacert", str(self.tls[0])] if self.tls else []
        opts += ["--user", user] if user else []
        res = subprocess.run([require("etcdctl"), *opts, "--endpoints", self.endpoints[0], *args],
                             capture_output=True, text=True, timeout=30, env={**os.environ, "ETCDCTL_API": "3"})
        if res.returncode != 0:
            raise RuntimeError(f"etcdctl {' '.join(args)}: {res.stderr.strip()}")
        return res.stdout

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        if proc is not None:
            proc.kill()
            proc.wait()
        self.procs[name] = None

    def stop(self) -> None:
        for n in self.names:
            self.procs[n] = terminate(self.procs[n])
