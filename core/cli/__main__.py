import sys

from paretoscope.cli import main

sys.exit(main())
