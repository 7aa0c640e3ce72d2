"""`mtiasim` command lines run in this process through `mtiasim.cli.main`, for tests of what a command
does (a subprocess each costs seconds of interpreter start and imports; tests/mtiasim/test_cli.py runs
the console script itself, end to end)."""
import subprocess

from mtiasim.cli import main


def mtiasim_main(capsys, *args, ok=True) -> subprocess.CompletedProcess:
    """What `mtiasim ARGS` returned and printed, as subprocess.run would give it."""
    argv = [str(a) for a in args]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0 or not ok, err
    return subprocess.CompletedProcess(["mtiasim", *argv], code, out, err)
