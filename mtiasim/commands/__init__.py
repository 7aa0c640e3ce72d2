"""The commands of `mtiasim`, one module per family; importing this package registers them all in
`mtiasim.cli.COMMANDS`, in the order `mtiasim --help` lists them. Each module imports only the
standard library at the top (what a command needs is imported when it runs), so listing the
commands stays fast."""
# noqa: F401 below: each module is imported for the commands it registers
from . import run, listing, sweep, results, trace, roofline, bench, compile, model, serve  # noqa: F401,I001
