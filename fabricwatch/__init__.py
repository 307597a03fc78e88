"""fabricwatch: live telemetry and anomaly detection for GPU-cluster network fabrics.

The layers live in the repository's top-level folders (core/, collectors/, sinks/, ...) and are
linked in here, so that they import as `fabricwatch.<layer>` and nothing else lands at the top of
site-packages.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fabricwatch")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"
