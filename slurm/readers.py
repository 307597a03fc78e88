"""Reading running jobs and nodes: from slurmrestd (API v0.0.38) or from `squeue --json` / `sinfo --json`."""

from __future__ import annotations

import json
from typing import Protocol

import aiohttp

from fabricwatch.core.secrets import reveal
from fabricwatch.slurm.commands import SlurmError, run
from fabricwatch.slurm.config import SlurmConfig
from fabricwatch.slurm.records import RUNNING, Job, Node, SlurmAnswerError, parse_jobs, parse_nodes

API = "v0.0.38"


class SlurmReader(Protocol):
    """Where the jobs and nodes come from."""

    async def jobs(self, *, running: bool = True) -> list[Job]: ...

    async def nodes(self) -> list[Node]: ...


def _decode(text: str, what: str) -> object:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SlurmError(f"{what}: not JSON: {exc}") from None


def _errors(text: str) -> str:
    """What slurmrestd's `errors` say (22.05 answers a refused token with 500 and 'Failed while looking
    for jobs'), or the start of the body."""
    try:
        doc = json.loads(text)
        said = [f"{e.get('description') or ''} ({e.get('error') or ''})".strip() for e in doc["errors"]]
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return text.strip()[:200]
    return "; ".join(said)[:300] or text.strip()[:200]


class RestReader:
    """slurmrestd: GET /slurm/v0.0.38/jobs and /nodes with the user's JWT."""

    def __init__(self, cfg: SlurmConfig) -> None:
        assert cfg.rest_url is not None
        self.cfg = cfg
        self.base = f"{cfg.rest_url.rstrip('/')}/slurm/{API}"

    async def _get(self, path: str) -> object:
        headers = {"X-SLURM-USER-NAME": self.cfg.user, "X-SLURM-USER-TOKEN": reveal(self.cfg.token) or ""}
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.cfg.timeout)) as session, \
                    session.get(f"{self.base}/{path}", headers=headers) as resp:
                text = await resp.text()
                if resp.status != 200:
                    raise SlurmError(f"slurmrestd {path}: HTTP {resp.status}: {_errors(text)}")
        except (aiohttp.ClientError, TimeoutError, UnicodeDecodeError) as exc:
            raise SlurmError(f"slurmrestd {path}: {exc or type(exc).__name__}") from None
        return _decode(text, f"slurmrestd {path}")

    async def jobs(self, *, running: bool = True) -> list[Job]:
        try:
            return parse_jobs(await self._get("jobs"), states=RUNNING if running else None)
        except SlurmAnswerError as exc:
            raise SlurmError(f"slurmrestd jobs: {exc}") from None

    async def nodes(self) -> list[Node]:
        try:
            return parse_nodes(await self._get("nodes"))
        except SlurmAnswerError as exc:
            raise SlurmError(f"slurmrestd nodes: {exc}") from None


class CommandReader:
    """`squeue --json` and `sinfo --json` (Slurm 21.08 and later), where no slurmrestd runs."""

    def __init__(self, cfg: SlurmConfig) -> None:
        assert cfg.command is not None
        self.cfg = cfg

    async def _json(self, argv: list[str]) -> object:
        text = await run(argv, slurm_conf=self.cfg.slurm_conf, timeout=self.cfg.timeout)
        return _decode(text, argv[0])

    async def jobs(self, *, running: bool = True) -> list[Job]:
        # 22.05's --json ignores --states (it lists every job slurmctld holds): the states are also kept here
        argv = [str(self.cfg.command), "--json"] + (["--states=RUNNING,COMPLETING,SUSPENDED"] if running else [])
        try:
            return parse_jobs(await self._json(argv), states=RUNNING if running else None)
        except SlurmAnswerError as exc:
            raise SlurmError(f"{self.cfg.command}: {exc}") from None

    async def nodes(self) -> list[Node]:
        try:
            return parse_nodes(await self._json([self.cfg.sinfo, "--json"]))
        except SlurmAnswerError as exc:
            raise SlurmError(f"{self.cfg.sinfo}: {exc}") from None


def reader_for(cfg: SlurmConfig) -> SlurmReader:
    return RestReader(cfg) if cfg.rest_url is not None else CommandReader(cfg)
