"""``python -m paretoscope``: the same command line as ``paretoscope``."""

import sys

from paretoscope.cli import main

sys.exit(main())
