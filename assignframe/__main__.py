"""``python -m assignframe`` = the ``assignframe`` command."""

import sys

from .cli import main

sys.exit(main())
