"""Model files (`.fwm`): a zip of `model.json` and the forests in skops format, read without running
anything they hold."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path
from typing import Any

from fabricwatch.models.features import FEATURE_NAMES

MODEL_VERSION = 4  # the version of the file layout below; another is refused with the way to retrain


FORESTS = "forests.skops"
# what skops must not build unless told: the trees of the forests, nothing else
TRUSTED_TYPES = frozenset({"sklearn.tree._tree.Tree"})


def _check_owner(path: Path) -> None:
    """A model is code-free, but still decides what pages: refuse one others may have written."""
    try:
        st = path.stat()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc.strerror}") from None
    if st.st_mode & 0o022:
        raise ModelError(f"{path}: writable by group or others (mode {st.st_mode & 0o777:o}); chmod go-w it")
    if st.st_uid not in (0, os.geteuid()):
        raise ModelError(f"{path}: owned by uid {st.st_uid}, neither root nor this user")


class ModelError(Exception):
    """A model file that cannot be used; the message says why."""


def write_model(path: str | Path, meta: dict[str, Any], forests: dict[str, Any]) -> None:
    """`meta` as model.json (with the version, the features and the forests' checksum) beside the forests."""
    import skops.io as sio

    blob = sio.dumps(forests)
    meta = {"version": MODEL_VERSION, "features": list(FEATURE_NAMES), **meta,
            "sha256": hashlib.sha256(blob).hexdigest()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("model.json", json.dumps(meta, indent=1))
        z.writestr(FORESTS, blob)


def read_model(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(model.json, forests by class) of a model file, refused with the reason when it is not one this
    fabricwatch reads: another version, other features, a bad checksum, types a forest is not made of."""
    import skops.io as sio
    from sklearn.ensemble import IsolationForest

    _check_owner(Path(path))
    try:
        with zipfile.ZipFile(path) as z:
            meta = json.loads(z.read("model.json"))
            if meta.get("version") != MODEL_VERSION:
                raise ModelError(f"{path}: model version {meta.get('version')} but this fabricwatch reads "
                                 f"version {MODEL_VERSION}: retrain with `fabricwatch train`")
            blob = z.read(FORESTS)
    except (OSError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, AttributeError) as exc:
        raise ModelError(f"{path}: not a fabricwatch model file: {exc}") from None
    if meta.get("features") != list(FEATURE_NAMES):
        raise ModelError(f"{path}: trained on other features; retrain with `fabricwatch train`")
    if hashlib.sha256(blob).hexdigest() != meta.get("sha256"):
        raise ModelError(f"{path}: checksum mismatch, the file is damaged")
    try:
        untrusted = set(sio.get_untrusted_types(data=blob)) - TRUSTED_TYPES
        if untrusted:
            raise ModelError(f"{path}: holds types a link model is not made of: {sorted(untrusted)[:5]}")
        forests = sio.loads(blob, trusted=sorted(TRUSTED_TYPES))
    except ModelError:
        raise
    except Exception as exc:  # skops refuses what it cannot build safely in many ways
        raise ModelError(f"{path}: the forests cannot be read: {exc}") from None
    if not isinstance(forests, dict) or not all(isinstance(f, IsolationForest) for f in forests.values()):
        raise ModelError(f"{path}: the forests are not isolation forests")
    return meta, forests
