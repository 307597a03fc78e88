"""SNMP polling CPU: our collector against Debian's prometheus-snmp-exporter, same agent, same columns.

Both poll snmpsim serving a real Cisco Nexus walk (125 interfaces) for the same IF-MIB and
EtherLike columns, with port names looked up from ifName. CPU is the poller's own: this
process's CPU time for our collector, /proc/<pid>/stat for snmp_exporter (which also renders
its HTTP answer: a cost our collector does not have, but it is the peer as operators run it).
Prints CPU per varbind for each and the ratio (target <= 3x), and the devices x ports one core
can poll every 30 s. Agents answer slowly, so several snmpsim processes serve in parallel.

    python bench/snmp_poll.py [--rounds 20] [--engine fast|pysnmp] [--agents 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricwatch.collectors.snmp.config import SnmpConfig  # noqa: E402
from fabricwatch.pipeline.pipeline import Pipeline  # noqa: E402
from tests.servers import Snmpd, SnmpSim, free_port, require  # noqa: E402

RECORDING = ROOT.parent / "shared" / "fixtures" / "snmp" / "nxos-n9000.snmprec"
TARGET_RATIO = 3.0
IF = "1.3.6.1.2.1.2.2.1"
IFX = "1.3.6.1.2.1.31.1.1.1"
PAUSE = "1.3.6.1.2.1.10.7.10.1"
# the columns of the if-mib profile, plus the names both pollers read
COLUMNS = {
    f"{IF}.8": "gauge", f"{IF}.9": "gauge", f"{IF}.13": "counter", f"{IF}.14": "counter",
    f"{IF}.19": "counter", f"{IF}.20": "counter", f"{IFX}.6": "counter", f"{IFX}.7": "counter",
    f"{IFX}.10": "counter", f"{IFX}.11": "counter", f"{IFX}.15": "gauge",
    f"{PAUSE}.3": "counter", f"{PAUSE}.4": "counter",
}
NAMES = {f"{IFX}.1": "ifName", f"{IF}.2": "ifDescr"}


def exporter_yaml(community: str, max_repetitions: int, v3: bool = False) -> str:
    auth = ([f"    community: {community}"] if not v3 else [
        f"    username: {Snmpd.USER}", "    security_level: authPriv", f"    password: {Snmpd.AUTH_KEY}",
        "    auth_protocol: SHA256", "    priv_protocol: AES", f"    priv_password: {Snmpd.PRIV_KEY}"])
    lines = ["fabricwatch_if:", f"  version: {3 if v3 else 2}", f"  max_repetitions: {max_repetitions}",
             "  retries: 0", "  timeout: 10s", "  auth:", *auth, "  walk:"]
    lines += [f"  - {oid}" for oid in [*COLUMNS, *NAMES]]
    lines.append("  metrics:")
    for oid, typ in COLUMNS.items():
        name = "c" + oid.replace(".", "_")
        lines += [f"  - name: {name}", f"    oid: {oid}", f"    type: {typ}", "    indexes:",
                  "    - labelname: ifIndex", "      type: gauge", "    lookups:",
                  "    - labels: [ifIndex]", "      labelname: ifName", f"      oid: {IFX}.1",
                  "      type: DisplayString"]
    return "\n".join(lines) + "\n"


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_exporter(port: int, community: str, rounds: int, reps: int, agents: int,
                 v3: bool = False) -> tuple[float, int, int]:
    """(CPU seconds, varbinds, scrapes) of snmp_exporter polling the agent `rounds` times per agent."""
    work = Path(tempfile.mkdtemp(prefix="fw-bench-exporter-"))
    conf = work / "snmp.yml"
    conf.write_text(exporter_yaml(community, reps, v3))
    listen = free_port()
    proc = subprocess.Popen([require("prometheus-snmp-exporter"), f"--config.file={conf}",
                             f"--web.listen-address=127.0.0.1:{listen}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{listen}/snmp?module=fabricwatch_if&target=127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                body = urllib.request.urlopen(url, timeout=30).read().decode()  # warm-up
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        cpu0 = proc_cpu(proc.pid)
        varbinds = 0

        def scrape() -> int:
            body = urllib.request.urlopen(url, timeout=60).read().decode()
            m = re.search(r"^snmp_scrape_pdus_returned (\S+)$", body, re.M)
            return int(float(m.group(1))) if m else 0

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(agents) as pool:
            varbinds = sum(pool.map(lambda _: scrape(), range(rounds * agents)))
        return proc_cpu(proc.pid) - cpu0, varbinds, rounds * agents
    finally:
        proc.terminate()
        proc.wait()
        assert body


async def run_ours(port: int, community: str, rounds: int, reps: int, engine: str, agents: int,
                   pipeline: bool, v3: bool = False) -> tuple[float, int, int, int]:
    """(CPU seconds, varbinds, polls, ports per poll) of our collector polling the agent."""
    os.environ["FW_BENCH_COMMUNITY"] = community
    os.environ["FW_BENCH_AUTH"], os.environ["FW_BENCH_PRIV"] = Snmpd.AUTH_KEY, Snmpd.PRIV_KEY
    security: dict[str, object] = {"community": {"env": "FW_BENCH_COMMUNITY"}} if not v3 else {
        "version": "3", "v3": {"user": Snmpd.USER, "auth_protocol": "sha256", "auth_key": {"env": "FW_BENCH_AUTH"},
                               "priv_protocol": "aes", "priv_key": {"env": "FW_BENCH_PRIV"}}}
    cfg = SnmpConfig.model_validate({
        "engine": engine, **security, "timeout": 10, "retries": 0,
        "max_repetitions": reps, "profile": "if-mib",
        "targets": [{"device": f"agent-{i}", "address": f"127.0.0.1:{port}"} for i in range(agents)],
    })
    collectors = cfg.build()
    pipe = Pipeline()
    ports = 0
    for c in collectors:  # warm-up: profile, names, engine discovery
        async with c:
            ports = len((await c.poll()).samples)
    for c in collectors:
        await c.__aenter__()
    base = sum(c.rows_read for c in collectors)

    async def loop(c: object) -> None:
        for _ in range(rounds):
            batch = await c.poll()  # type: ignore[attr-defined]
            if pipeline:
                pipe.process(batch)

    cpu0 = time.process_time()
    await asyncio.gather(*(loop(c) for c in collectors))
    cpu = time.process_time() - cpu0
    # rows of the asked columns, like snmp_exporter's snmp_scrape_pdus_returned (not the GETBULK
    # overshoot past a column's end, which would flatter the per-varbind number)
    varbinds = sum(c.rows_read for c in collectors) - base
    for c in collectors:
        await c.__aexit__(None, None, None)
    return cpu, varbinds, rounds * agents, ports


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10, help="polls per agent for each poller")
    ap.add_argument("--agents", type=int, default=3, help="snmpsim processes (the same recording each)")
    ap.add_argument("--max-repetitions", type=int, default=25)
    ap.add_argument("--engine", choices=["fast", "pysnmp"], default="fast")
    ap.add_argument("--version", choices=["2c", "3"], default="2c",
                    help="3: SNMPv3 authPriv (SHA-256/AES) against Debian's snmpd (this host's interfaces)")
    args = ap.parse_args()
    v3 = args.version == "3"
    if v3:
        return main_v3(args)

    sims = [SnmpSim([RECORDING]) for _ in range(args.agents)]
    for s in sims:
        s.start()
    community = RECORDING.stem
    try:
        # one agent process per poller stream; each poller polls all of them
        results_theirs = [run_exporter(s.port, community, args.rounds, args.max_repetitions, 1) for s in sims]
        theirs_cpu = sum(r[0] for r in results_theirs)
        theirs_vb = sum(r[1] for r in results_theirs)
        ours = [asyncio.run(run_ours(s.port, community, args.rounds, args.max_repetitions, args.engine, 1, False))
                for s in sims]
        ours_cpu, ours_vb = sum(r[0] for r in ours), sum(r[1] for r in ours)
        polls, ports = sum(r[2] for r in ours), ours[0][3]
        full = [asyncio.run(run_ours(s.port, community, args.rounds, args.max_repetitions, args.engine, 1, True))
                for s in sims]
        full_cpu, full_vb = sum(r[0] for r in full), sum(r[1] for r in full)
    finally:
        for s in sims:
            s.stop()
    us_theirs = theirs_cpu / max(theirs_vb, 1) * 1e6
    us_ours = ours_cpu / max(ours_vb, 1) * 1e6
    us_full = full_cpu / max(full_vb, 1) * 1e6
    ratio = us_ours / us_theirs if us_theirs else float("inf")
    per_port_poll = ours_cpu / (polls * ports)
    print(f"agent: snmpsim x{args.agents}, {RECORDING.name} ({ports} interfaces), max_repetitions "
          f"{args.max_repetitions}, {args.rounds} polls per agent per poller")
    print(f"prometheus-snmp-exporter  {us_theirs:8.1f} us CPU/varbind  ({theirs_vb} varbinds, {theirs_cpu:.2f} s)")
    print(f"fabricwatch snmp [{args.engine:6}]  {us_ours:8.1f} us CPU/varbind  ({ours_vb} varbinds, {ours_cpu:.2f} s)")
    print(f"  + pipeline (rates, LP)   {us_full:8.1f} us CPU/varbind")
    print(f"ratio ours/exporter: {ratio:.2f}x (target <= {TARGET_RATIO:g}x)  -> "
          f"{'OK' if ratio <= TARGET_RATIO else 'OVER TARGET'}")
    print(f"one core, collector only: {30 / per_port_poll:,.0f} ports per 30 s "
          f"(= {30 / per_port_poll / 64:,.0f} devices x 64 ports)")
    return 0 if ratio <= TARGET_RATIO else 1


def main_v3(args: argparse.Namespace) -> int:
    """The same comparison over SNMPv3 authPriv, against snmpd (snmpsim's v3 needs per-context data)."""
    agent = Snmpd(Path(tempfile.mkdtemp(prefix="fw-bench-snmpd-")))
    agent.start()
    try:
        theirs_cpu, theirs_vb, _ = run_exporter(agent.port, "", args.rounds * 5, args.max_repetitions, 1, v3=True)
        cpu, vb, polls, ports = asyncio.run(run_ours(agent.port, "", args.rounds * 5, args.max_repetitions,
                                                     args.engine, 1, False, v3=True))
    finally:
        agent.stop()
    us_theirs, us_ours = theirs_cpu / max(theirs_vb, 1) * 1e6, cpu / max(vb, 1) * 1e6
    ratio = us_ours / us_theirs
    print(f"agent: snmpd (this host, {ports} interfaces), SNMPv3 authPriv SHA-256/AES-128, {polls} polls each")
    print(f"prometheus-snmp-exporter  {us_theirs:8.1f} us CPU/varbind  ({theirs_vb} varbinds, {theirs_cpu:.2f} s)")
    print(f"fabricwatch snmp [{args.engine:6}]  {us_ours:8.1f} us CPU/varbind  ({vb} varbinds, {cpu:.2f} s)")
    print(f"ratio ours/exporter: {ratio:.2f}x (target <= {TARGET_RATIO:g}x)  -> "
          f"{'OK' if ratio <= TARGET_RATIO else 'OVER TARGET'}")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
