"""Config: errors name the file and the key path; secrets come from env or files."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from fabricwatch.daemon import config
from fabricwatch.daemon.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]

GOOD = """
[daemon]
listen = "127.0.0.1:9465"
shard = "1/2"

[[collectors.gnmi]]
flavour = "arista"
sample_interval = "5s"
targets = [{ device = "leaf1", address = "127.0.0.1:57400" }]

[[sinks.influxdb]]
api = "v1"
database = "fw"
spool = { dir = "/tmp/fw-spool" }
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "fabricwatch.toml"
    p.write_text(text)
    return p


def test_good_config_loads(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, GOOD))
    assert cfg.daemon.shard_k_n == (1, 2)
    (kind, gnmi), = cfg.collector_configs()
    assert kind == "gnmi" and gnmi.sample_interval == 5.0 and gnmi.targets[0].device == "leaf1"


@pytest.mark.parametrize(
    ("old", "new", "key", "message"),
    [
        ('sample_interval = "5s"', 'sample_intervall = "5s"', "collectors.gnmi[0].sample_intervall",
         "unknown key"),
        ('sample_interval = "5s"', 'sample_interval = "soon"', "collectors.gnmi[0].sample_interval",
         "duration"),
        ('shard = "1/2"', 'shard = "3/2"', "daemon.shard", "k/N"),
        ('shard = "1/2"', 'shard = "1/2"\nevent_loop = "tokio"', "daemon.event_loop", "uvloop"),
        ('address = "127.0.0.1:57400"', 'address = "nohost"', "collectors.gnmi[0].targets[0].address",
         "host:port"),
        ('flavour = "arista"', 'flavour = "junos"', "collectors.gnmi[0].flavour", "unknown gNMI flavour"),
        ('database = "fw"', 'database = 7', "sinks.influxdb[0].database", "string"),
        ('api = "v1"', 'api = "v3"', "sinks.influxdb[0].api", "v1"),
    ],
)
def test_errors_name_file_and_key(tmp_path: Path, old: str, new: str, key: str, message: str) -> None:
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(ConfigError) as err:
        config.load(path)
    text = str(err.value)
    assert text.startswith(f"{path}: {key}: "), text
    assert message in text


def test_unknown_section_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"collectors\.snmpp: unknown key"):
        config.load(write(tmp_path, GOOD + "\n[[collectors.snmpp]]\nx = 1\n"))


def test_toml_syntax_error_names_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[daemon\nlisten=")
    with pytest.raises(ConfigError, match=f"{path}: not valid TOML"):
        config.load(path)


def test_secret_from_env_and_file_and_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = GOOD.replace('database = "fw"', 'database = "fw"\nusername = "w"\npassword = { env = "FW_PW" }')
    monkeypatch.delenv("FW_PW", raising=False)
    with pytest.raises(ConfigError, match=r"sinks\.influxdb\[0\]\.password: environment variable FW_PW is not set"):
        config.load(write(tmp_path, base))
    monkeypatch.setenv("FW_PW", "s3cret")
    cfg = config.load(write(tmp_path, base))
    (_, sink), = cfg.sink_configs()
    assert sink.password.resolve().get_secret_value() == "s3cret"
    assert "s3cret" not in repr(cfg) and "s3cret" not in cfg.model_dump_json()
    secret_file = tmp_path / "pw"
    secret_file.write_text("fromfile\n")
    cfg = config.load(write(tmp_path, base.replace('{ env = "FW_PW" }', f'{{ file = "{secret_file}" }}')))
    assert cfg.sink_configs()[0][1].password.resolve().get_secret_value() == "fromfile"


def test_every_sample_toml_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    samples = (sorted(ROOT.glob("collectors/*/sample.toml")) + sorted(ROOT.glob("sinks/*/sample.toml"))
               + sorted(ROOT.glob("*/sample.toml")))
    assert len(samples) >= 3 and ROOT / "slurm" / "sample.toml" in samples
    for path in samples:
        text = path.read_text()
        for name in re.findall(r'env = "([A-Z0-9_]+)"', text):  # secrets the samples read from the env
            monkeypatch.setenv(name, "sample-secret")
        data = tomllib.loads(text)
        config.parse(data, str(path))


def test_secrets_in_the_clear_or_writes_open_to_the_network_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A gNMI password without TLS, or an NCCL upload endpoint with no token on a listener that is
    not loopback, is a config error naming the key; saying so explicitly makes it a warning."""
    from fabricwatch.daemon.check import exposure_warnings

    monkeypatch.setenv("FW_PW", "pw")
    gnmi = {"flavour": "arista", "username": "u", "password": {"env": "FW_PW"},
            "targets": [{"device": "leaf1", "address": "127.0.0.1:57400"}]}
    sink = {"influxdb": [{"database": "fw", "spool": {"dir": "/tmp/fw-spool"}}]}
    with pytest.raises(ConfigError, match=r"collectors\.gnmi\[0\]: .*password travels in the clear"):
        config.parse({"collectors": {"gnmi": [gnmi]}, "sinks": sink})
    lab = config.parse({"collectors": {"gnmi": [{**gnmi, "insecure": True}]}, "sinks": sink})
    assert any("insecure = true sends the password" in w for w in exposure_warnings(lab))
    config.parse({"collectors": {"gnmi": [{**gnmi, "tls": {"enabled": True}}]}, "sinks": sink})

    with pytest.raises(ConfigError, match=r"nccl\.upload_token: required when daemon\.listen \(0\.0\.0\.0:9465\)"):
        config.parse({"daemon": {"listen": "0.0.0.0:9465"}, "sinks": sink})
    monkeypatch.setenv("FW_TOKEN", "t")
    wide = config.parse({"daemon": {"listen": "0.0.0.0:9465"}, "nccl": {"upload_token": {"env": "FW_TOKEN"}}})
    assert any("not loopback" in w for w in exposure_warnings(wide))
    config.parse({"daemon": {"listen": "10.1.2.3:9465"}, "nccl": {"upload": False}})
    assert not exposure_warnings(config.parse({"daemon": {"listen": "[::1]:9465"}}))


def test_a_secret_from_a_systemd_credential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "influx").write_text("s3cret\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    cfg = config.parse({"sinks": {"influxdb": [{"database": "fw", "username": "w",
                                                "password": {"credential": "influx"}}]}})
    assert cfg.sinks.influxdb[0].password.resolve().get_secret_value() == "s3cret"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"password: .*credential missing: cannot read"):
        config.parse({"sinks": {"influxdb": [{"database": "fw", "username": "w",
                                              "password": {"credential": "missing"}}]}})
    with pytest.raises(ConfigError, match="a name, not a path"):
        config.parse({"sinks": {"influxdb": [{"database": "fw", "username": "w",
                                              "password": {"credential": "../etc/shadow"}}]}})
    monkeypatch.delenv("CREDENTIALS_DIRECTORY")
    with pytest.raises(ConfigError, match=r"CREDENTIALS_DIRECTORY is not set"):
        config.parse({"sinks": {"influxdb": [{"database": "fw", "username": "w",
                                              "password": {"credential": "influx"}}]}})


def test_a_secret_written_in_the_config_is_refused_with_the_way_to_write_it(tmp_path: Path) -> None:
    text = GOOD.replace('database = "fw"', 'database = "fw"\nusername = "w"\npassword = "hunter2"')
    with pytest.raises(ConfigError) as err:
        config.load(write(tmp_path, text))
    msg = str(err.value)
    assert "sinks.influxdb[0].password" in msg and "fabricwatch.toml" in msg
    assert 'write { env = "NAME" }' in msg and '{ file = "/path" }' in msg
    assert "hunter2" not in msg  # the refused secret is not echoed to a log
    assert "valid dictionary" not in msg
