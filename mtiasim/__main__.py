"""`python -m mtiasim`: the command line, as the `mtiasim` console script runs it."""
import sys

from mtiasim.cli import main

sys.exit(main())
