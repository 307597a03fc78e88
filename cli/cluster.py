"""`fabricwatch cluster status`: the members of an etcd-coordinated cluster and what each polls."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from fabricwatch.cli.errors import CommandError, load_config
from fabricwatch.cluster.etcd import EtcdError
from fabricwatch.cluster.member import cluster_status, etcd_for


async def _status(args: argparse.Namespace) -> dict[str, Any]:
    cfg = load_config(args.config)
    if not cfg.cluster.enabled:
        raise CommandError(f"{args.config}: no [cluster] etcd endpoints: this daemon is not in a cluster", 2)
    etcd = etcd_for(cfg.cluster)
    try:
        doc = await cluster_status(etcd, cfg.cluster.prefix.rstrip("/"), cfg.cluster.name)
    except EtcdError as exc:
        raise CommandError(str(exc)) from None
    finally:
        await etcd.close()
    configured = {c.key for _, section in cfg.collector_configs() for c in section.build()}
    held = {t for m in doc["members"] for t in m["targets"]}
    doc["unowned"] = sorted(configured - held)  # in this config, polled by no member
    return doc


def cmd_status(args: argparse.Namespace) -> int:
    doc = asyncio.run(_status(args))
    if args.json:
        print(json.dumps(doc))
        return 0
    print(f"cluster {load_config(args.config).cluster.prefix}: {len(doc['members'])} members (this config is "
          f"{doc['member']})")
    for m in doc["members"]:
        age = "-" if m["lease_age_s"] is None else f"{m['lease_age_s']:.0f} s"
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(m["started_unix"])) if m.get("started_unix") else "-"
        print(f"  {m['name']:<20} {len(m['targets']):>5} targets   lease renewed {age} ago   since {started} UTC")
        if args.verbose:
            for t in m["targets"]:
                print(f"      {t}")
    if doc["unreadable_keys"]:
        print(f"  {doc['unreadable_keys']} keys under the prefix that no member wrote (skipped)")
    if doc["unowned"]:
        print(f"  {len(doc['unowned'])} targets of this config polled by nobody: {', '.join(doc['unowned'][:10])}")
    return 1 if doc["unowned"] else 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("cluster", help="the etcd-coordinated cluster this config belongs to")
    s = p.add_subparsers(dest="cluster_cmd", required=True)
    st = s.add_parser("status", help="members, the targets each polls, lease ages; exit 1 if a target is unowned")
    st.add_argument("-c", "--config", type=Path, required=True)
    st.add_argument("--json", action="store_true", help="the same document as /api/cluster, plus 'unowned'")
    st.add_argument("-v", "--verbose", action="store_true", help="list every member's targets")
    st.set_defaults(func=cmd_status)
