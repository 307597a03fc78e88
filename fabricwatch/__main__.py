"""`python -m fabricwatch` is the `fabricwatch` command."""

import sys

from fabricwatch.cli.main import main

sys.exit(main())
