"""One member of a fabricwatch cluster: registered in etcd under a lease, it polls the targets that
rendezvous hashing gives it over the live members, and holds each under a key bound to its lease.

Keys under the cluster's prefix:
    members/<name>             {"name", "lease", "listen", "started_unix"}   (the member's lease)
    owners/<target>/<member>   ""                                           (the holder's lease)

Every tick (a quarter of the lease) a member renews its lease, reads the members and the holders,
and for each target it should own starts polling it, then puts its holder key. A target it polls but
should no longer own (a member joined, or came back) is stopped only once its new owner holds it:
for a tick both poll it, never neither. A member that dies (kill -9) loses its lease after `lease`
seconds: its member and holder keys vanish, and the others take its targets at their next tick. A
member that stops (SIGTERM) deletes its member key first and keeps polling until the others hold
its targets (at most one lease), then revokes its lease.

When etcd cannot be reached or has lost its quorum, a member keeps polling what it polls, takes and
gives nothing, and says so (`fabricwatch_cluster_etcd_up`, /readyz). Two members can then poll one
target (a member cut off from a quorate etcd keeps its targets while the others take them over):
the points they write are the same (same series, same device timestamps), so storage keeps one;
dropping a target would lose its data instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
import urllib.parse
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from fabricwatch.cluster.assign import group_of, owner
from fabricwatch.cluster.config import MEMBER_NAME, ClusterConfig
from fabricwatch.cluster.etcd import Etcd, EtcdAuthError, EtcdError, KeyValue, LeaseGone
from fabricwatch.core.secrets import reveal

log = logging.getLogger("fabricwatch.cluster")


class Targets(Protocol):
    """What the runtime does for the cluster: it knows every target of the config, polls some."""

    def all_targets(self) -> Mapping[str, str]:
        """Every target the config has: key -> the device it polls (what the groups are made of)."""

    def polling(self) -> set[str]:
        """The keys of the targets polled now."""

    async def start_polling(self, key: str) -> None: ...

    async def stop_polling(self, key: str) -> None: ...


def etcd_for(cfg: ClusterConfig) -> Etcd:
    password = cfg.password
    return Etcd(cfg.etcd, tls=cfg.tls, username=cfg.username, password=lambda: reveal(password), timeout=cfg.timeout)


def _member_key(prefix: str, name: str) -> str:
    return f"{prefix}/members/{name}"


def _owner_key(prefix: str, target: str, member: str) -> str:
    return f"{prefix}/owners/{urllib.parse.quote(target, safe='')}/{member}"


@dataclass(slots=True)
class View:
    """The cluster as etcd says it is now."""

    members: dict[str, dict[str, Any]]  # name -> its registration
    holders: dict[str, set[str]]  # target -> the live members holding it
    unreadable: int = 0  # keys under the prefix that are not ours to read (not UTF-8, not a registration): skipped


def _registration(kv: KeyValue) -> tuple[str, dict[str, Any]] | None:
    """A member key's name and registration; None when it is not one a member wrote."""
    try:
        name = kv.key.decode().rsplit("/", 1)[-1]
        doc = json.loads(kv.value)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested deeper than the parser goes
        return None
    if not MEMBER_NAME.fullmatch(name) or not isinstance(doc, dict):
        return None
    return name, doc


async def read_view(etcd: Etcd, prefix: str) -> View:
    """Members and holders under `prefix`; a key no member could have written is skipped and counted,
    so one bad key cannot stop the cluster (nor be given targets nobody polls)."""
    members: dict[str, dict[str, Any]] = {}
    unreadable = 0
    for kv in await etcd.prefix(f"{prefix}/members/"):
        reg = _registration(kv)
        if reg is None:
            unreadable += 1
            continue
        name, doc = reg
        members[name] = {**doc, "name": name, "lease": kv.lease}
    holders: dict[str, set[str]] = defaultdict(set)
    start = len(prefix) + len("/owners/")
    for kv in await etcd.prefix(f"{prefix}/owners/"):
        try:
            target, _, member = kv.key.decode()[start:].rpartition("/")
        except UnicodeDecodeError:
            unreadable += 1
            continue
        if member in members:  # a holder key outlives its member by at most a lease: not counted
            holders[urllib.parse.unquote(target)].add(member)
    return View(members, dict(holders), unreadable)


def _seconds(value: object) -> float | None:
    """A registration's time, if it is one (any client can write the key)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


async def cluster_status(etcd: Etcd, prefix: str, me: str) -> dict[str, Any]:
    """What /api/cluster and `fabricwatch cluster status` show: every member, its targets, and how
    long since it last renewed its lease."""
    view = await read_view(etcd, prefix)
    out = []
    for name, doc in sorted(view.members.items()):
        left, granted = await etcd.time_to_live(int(doc.get("lease") or 0))
        out.append({"name": name, "targets": sorted(t for t, hs in view.holders.items() if name in hs),
                    "lease_age_s": float(max(0, granted - left)) if left >= 0 else None,
                    "listen": doc.get("listen") if isinstance(doc.get("listen"), str) else "",
                    "started_unix": _seconds(doc.get("started_unix"))})
    return {"member": me, "members": out, "unreadable_keys": view.unreadable}


class ClusterMember:
    def __init__(self, cfg: ClusterConfig, targets: Targets, *, listen: str = "", etcd: Etcd | None = None) -> None:
        self.cfg, self.targets, self.listen = cfg, targets, listen
        self.name, self.prefix = cfg.name, cfg.prefix.rstrip("/")
        self.etcd = etcd or etcd_for(cfg)
        self.pattern = cfg.pattern
        self.tick_s = cfg.lease / 4
        self.lease = 0
        self.started_unix = time.time()
        self.view = View({}, {})
        self.etcd_up = False
        self.last_ok: float | None = None  # monotonic time of the last tick etcd answered
        self.last_error = ""
        self.ticks = self.failed_ticks = self.takeovers = self.handovers = self.registrations = 0
        self.auth_failures = 0  # ticks etcd refused this member's credentials or permissions
        self.refused: str | None = None  # why etcd refuses this member now
        self.unreadable_keys = 0  # in the last view
        self.name_conflict: str | None = None  # why this member is refused: another process has its name
        self.leaving = False

    # -- the loop ----------------------------------------------------------------------------------
    async def run(self) -> None:
        """Tick until asked to leave; etcd trouble is counted and waited out, never raised."""
        while not self.leaving:
            try:
                await self.tick()
                self.etcd_up, self.last_ok = True, time.monotonic()
                if self.refused is not None:
                    log.warning("etcd accepts this member again", extra={"member": self.name})
                self.refused = None
            except EtcdAuthError as exc:
                await self._refused_by_etcd(str(exc))
            except EtcdError as exc:
                self.failed_ticks += 1
                if self.etcd_up or not self.last_error:
                    log.warning("etcd unreachable: keeping the targets polled now",
                                extra={"error": str(exc), "polling": len(self.targets.polling())})
                self.etcd_up, self.last_error = False, str(exc)
            await asyncio.sleep(self.tick_s)

    async def _refused_by_etcd(self, reason: str) -> None:
        """etcd answers but refuses this member (credentials, role): an operator must act, so it is said
        once; until then a member that never coordinated polls every target of its config alone (losing
        data for a config mistake is worse than polling a switch twice), one that did keeps its targets."""
        self.failed_ticks += 1
        self.auth_failures += 1
        self.etcd_up, self.last_error = False, reason
        if reason != self.refused:
            alone = self.last_ok is None
            log.error("etcd refused this member: " + ("polling every target of the config alone" if alone
                      else "keeping the targets polled now") + ", retrying each tick",
                      extra={"member": self.name, "error": reason})
        self.refused = reason
        if self.last_ok is None:
            polling = self.targets.polling()
            for key in sorted(set(self.targets.all_targets()) - polling):
                await self.targets.start_polling(key)

    async def _register(self) -> bool:
        """Put this member's key, by transaction: only where it is absent or already bound to this
        member's lease. False when another process holds the name (it is refused, not shared)."""
        if not self.lease:
            self.lease = await self.etcd.grant(max(2, round(self.cfg.lease)))
        doc = {"name": self.name, "lease": self.lease, "listen": self.listen, "started_unix": self.started_unix}
        try:
            held = await self.etcd.claim(_member_key(self.prefix, self.name), json.dumps(doc), lease=self.lease)
        except LeaseGone:
            self.lease = 0
            return await self._register()
        if held is not None:
            await self._refused(held)
            return False
        if self.name_conflict is not None:
            log.warning("member name free again: registered", extra={"member": self.name})
        self.name_conflict = None
        self.registrations += 1
        log.info("cluster member registered", extra={"member": self.name, "lease": self.lease})
        return True

    async def _refused(self, held: KeyValue) -> None:
        """Another process is registered under this name: it polls the name's share, this one polls
        nothing until the name is free (that process left, or its lease ran out) and says so."""
        reg = _registration(held)
        doc = reg[1] if reg is not None else {}
        started = _seconds(doc.get("started_unix"))
        since = time.strftime(", started %Y-%m-%dT%H:%M:%SZ", time.gmtime(started)) if started is not None else ""
        listen = doc.get("listen") if isinstance(doc.get("listen"), str) else "?"
        reason = (f"member name {self.name} is registered by another process (listen {listen}{since}, lease "
                  f"{held.lease:x}): polling nothing until it leaves; give each member its own [cluster] name")
        if reason != self.name_conflict:
            log.error("cluster member name taken: refused", extra={"member": self.name, "reason": reason})
        self.name_conflict = reason
        for key in sorted(self.targets.polling()):
            await self.targets.stop_polling(key)

    def should_own(self, device: str, members: list[str]) -> bool:
        return owner(group_of(device, self.pattern), members) == self.name

    async def tick(self) -> None:
        self.ticks += 1
        if self.lease and await self.etcd.keepalive(self.lease) <= 0:
            self.lease = 0  # it expired while etcd was away: its keys went with it
        view = await read_view(self.etcd, self.prefix)
        registered = True
        if not self.lease or view.members.get(self.name, {}).get("lease") != self.lease:
            registered = await self._register()
            view = await read_view(self.etcd, self.prefix)
        self.view = view
        if view.unreadable != self.unreadable_keys:
            log.warning("keys under the cluster prefix that no member wrote: skipped",
                        extra={"prefix": self.prefix, "unreadable": view.unreadable})
            self.unreadable_keys = view.unreadable
        if not registered:
            return
        members = sorted(view.members)
        every = self.targets.all_targets()
        polling = self.targets.polling()
        for key, device in every.items():
            if not self.should_own(device, members):
                continue
            held = view.holders.get(key, set())
            if key not in polling:
                # polling first, then the key that tells the old holder to stop: never neither
                if held - {self.name}:
                    self.takeovers += 1
                log.info("target taken", extra={"target": key, "member": self.name, "from": sorted(held)})
                await self.targets.start_polling(key)
            if self.name not in held:
                try:
                    await self.etcd.put(_owner_key(self.prefix, key, self.name), "", lease=self.lease)
                except LeaseGone:
                    self.lease = 0
                    return  # registered again at the next tick
        for key in sorted(polling):
            dev = every.get(key)
            if dev is not None and self.should_own(dev, members):
                continue
            new = owner(group_of(dev, self.pattern), members) if dev is not None else None
            if dev is None or new in view.holders.get(key, set()):
                # its new owner polls it now (or the config no longer has it): hand it over
                await self.targets.stop_polling(key)
                await self.etcd.delete(_owner_key(self.prefix, key, self.name))
                self.handovers += 1
                log.info("target handed over", extra={"target": key, "member": self.name, "to": new})
        for key, held in view.holders.items():
            if self.name in held and key not in self.targets.polling():
                dev = every.get(key)
                if dev is None or not self.should_own(dev, members):
                    await self.etcd.delete(_owner_key(self.prefix, key, self.name))  # a stale key of ours

    # -- leaving -----------------------------------------------------------------------------------
    async def leave(self, *, deadline_s: float | None = None) -> None:
        """SIGTERM: leave the member list, keep polling until the others hold what this member polls
        (at most `deadline_s`, one lease by default), then stop and give the lease back."""
        self.leaving = True
        if not self.lease:
            return
        limit = time.monotonic() + (deadline_s if deadline_s is not None else self.cfg.lease)
        try:
            await self.etcd.delete(_member_key(self.prefix, self.name), lease=self.lease)  # not a namesake's
            while time.monotonic() < limit:
                view = await read_view(self.etcd, self.prefix)
                rest = [k for k in self.targets.polling() if not view.holders.get(k, set()) - {self.name}]
                if not rest or not view.members:
                    break
                await asyncio.sleep(min(0.2, self.tick_s))
            for key in sorted(self.targets.polling()):
                await self.targets.stop_polling(key)
                self.handovers += 1
            await self.etcd.revoke(self.lease)
            log.info("left the cluster", extra={"member": self.name})
        except EtcdError as exc:
            log.warning("leaving without etcd: the others take over when the lease expires",
                        extra={"error": str(exc)})
        finally:
            self.lease = 0
            await self.etcd.close()

    # -- what it says ------------------------------------------------------------------------------
    def not_ready(self) -> str | None:
        if self.name_conflict is not None:
            return self.name_conflict
        if self.etcd_up:
            return None
        if self.refused is not None:
            return (f"etcd refused this member: polling {len(self.targets.polling())} targets without it "
                    f"({self.refused})")
        since = f" for {time.monotonic() - self.last_ok:.0f} s" if self.last_ok is not None else ""
        return (f"etcd unreachable{since}: keeping the {len(self.targets.polling())} targets polled now "
                f"({self.last_error})")

    async def status(self) -> dict[str, Any]:
        """/api/cluster: read from etcd now; when it cannot answer, the last view, said so."""
        try:
            doc = await cluster_status(self.etcd, self.prefix, self.name)
            return {**doc, "etcd_up": True, "conflict": self.name_conflict}
        except EtcdError as exc:
            members = [{"name": n, "targets": sorted(t for t, hs in self.view.holders.items() if n in hs),
                        "lease_age_s": None} for n in sorted(self.view.members)]
            return {"member": self.name, "members": members, "etcd_up": False, "error": str(exc),
                    "unreadable_keys": self.unreadable_keys, "conflict": self.name_conflict}
