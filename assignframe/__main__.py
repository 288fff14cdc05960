"""``python -m assignframe`` = the ``assignframe`` command."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while still importing: the same quiet exit as in a command
    sys.exit(130)

sys.exit(main())
