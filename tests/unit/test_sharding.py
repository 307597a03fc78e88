from __future__ import annotations

from fabricwatch.daemon.sharding import owns, shard_of


def test_every_device_has_exactly_one_owner_and_split_is_even() -> None:
    devices = [f"leaf-r{r}-{i}" for r in range(8) for i in range(64)]
    counts = [0, 0, 0, 0]
    for d in devices:
        owners = [k for k in range(1, 5) if owns(d, k, 4)]
        assert len(owners) == 1
        counts[owners[0] - 1] += 1
    assert min(counts) > len(devices) / 4 * 0.7


def test_stable_across_calls_and_known_value() -> None:
    # md5("spine-0") last 8 bytes as big-endian modulo 7, the Prometheus hashmod scheme
    import hashlib

    expected = int.from_bytes(hashlib.md5(b"spine-0").digest()[8:], "big") % 7
    assert shard_of("spine-0", 7) == expected == shard_of("spine-0", 7)
    assert owns("anything", 1, 1)
