"""``python -m primkit``: the ``primkit`` console command (primkit.tools.cli)."""
import sys

from primkit.tools.cli import main

sys.exit(main())
