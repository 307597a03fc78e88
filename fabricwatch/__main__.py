"""`python -m fabricwatch` is the `fabricwatch` command."""

import sys

try:
    from fabricwatch.cli.main import main
except KeyboardInterrupt:  # Ctrl-C while the command line itself loads: stop, no traceback
    sys.exit(130)

sys.exit(main())
