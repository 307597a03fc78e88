"""A user and password written into a sink's or UFM's URL (`http://user:pass@host`) are an inline
secret: the config refuses them, names the key, says how to write them instead and does not repeat
them (they used to pass and show on /api/targets and in /api/findings errors)."""

from __future__ import annotations

from typing import Any

import pytest

from fabricwatch.daemon.config import ConfigError, parse

SECRET = "s3cr3t-Pa55"
UFM = {"name": "ufm", "token": {"env": "UFM_TOKEN"}}


@pytest.mark.parametrize(("config", "key", "how"), [
    ({"sinks": {"influxdb": [{"url": f"http://writer:{SECRET}@influx.example:8086", "database": "fw"}]}},
     "sinks.influxdb[0].url", "username"),
    ({"sinks": {"influxdb": [{"url": f"https://{SECRET}@influx.example", "api": "v2", "bucket": "b"}]}},
     "sinks.influxdb[0].url", "token"),
    ({"collectors": {"ufm": [{**UFM, "url": f"https://admin:{SECRET}@ufm.example"}]}},
     "collectors.ufm[0].url", "username"),
    ({"collectors": {"ufm": [{**UFM, "url": "https://ufm.example",
                              "telemetry_url": f"http://admin:{SECRET}@ufm.example:9001"}]}},
     "collectors.ufm[0].telemetry_url", "username"),
    ({"collectors": {"ufm": [{**UFM, "url": "https://:@ufm.example"}]}}, "collectors.ufm[0].url", "username"),
])
def test_userinfo_in_a_url_is_refused_with_how_to_write_it(config: dict[str, Any], key: str, how: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UFM_TOKEN", "t")
    with pytest.raises(ConfigError) as err:
        parse(config, "fw.toml")
    message = str(err.value)
    assert f"fw.toml: {key}: " in message and "user name or password" in message, message
    assert how in message and "{ env = " in message, message
    assert SECRET not in message


def test_urls_without_userinfo_still_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UFM_TOKEN", "t")
    cfg = parse({"sinks": {"influxdb": [{"url": "http://influx.example:8086/", "database": "fw"}]},
                 "collectors": {"ufm": [{**UFM, "url": "https://ufm.example/path?x=a@b"}]}})
    assert cfg.storage_sink_configs()[0].url == "http://influx.example:8086/"  # type: ignore[attr-defined]
