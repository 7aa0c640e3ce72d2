"""The notebooks run top to bottom without errors (each in about a minute on two idle cores).

The notebooks whose own sizes take minutes (SMOKE below) run here at their smoke size, as papermill passes
parameters: each has one cell tagged `parameters` that ships `SMOKE = False`, the test adds `SMOKE = True`
after it, and the notebook takes the smallest sizes that still run every cell and draw every chart (fewer
grid points, rows and configs; the code a reader runs, on less work)."""
import time

import pytest

from repo import ROOT

pytestmark = pytest.mark.slow          # minutes of simulation: `pytest -m "not slow"` leaves it out

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = ROOT / "notebooks"


# each notebook, and words its printed output must contain
# (a figure is shown with what it counts: "% of roof" beside "% of compulsory", the tutorial-style GB/s
# as the arguments' bytes, which the output's dirty lines in the LLC let run past DRAM's bandwidth)
EXPECTED = {"roofline.ipynb": ("softmax", "gemm", "% of compulsory"),
            "sweep.ipynb": ("softmax", "matmul", "attention", "% of compulsory", "TFLOPS/W"),
            "memory.ipynb": ("dram_copy: ECC on makes it", "NoC links at 86.4 GB/s", "gemm", "% of compulsory"),
            "first_kernel.ipynb": ("max |y - numpy|", "unwritten elements: 0", "rmsnorm-rows-per-program",
                                   "local store", "arrows", "SE waited for: {'data x (dma)'",
                                   "GB/s of arguments, DRAM", "write-back LLC", "of the compulsory floor"),
            "pytorch_model.ipynb": ("coverage 100.0%", "left to the host: nothing", "0 kernels compiled"),
            "llm_serving.ipynb": ("every step at or above its floor: True", "mtia-300: TTFT", "tokens/s")}


# the notebooks whose default sizes take minutes: each must take the smoke flag
SMOKE = ("first_kernel.ipynb", "llm_serving.ipynb", "roofline.ipynb", "sweep.ipynb")


def _at_smoke_size(nb) -> None:
    """Insert `SMOKE = True` after the notebook's parameters cell, which must ship `SMOKE = False`."""
    at = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(at) == 1, "a notebook the suite shrinks has one cell tagged 'parameters'"
    assert "SMOKE = False" in nb.cells[at[0]].source, "the notebook ships with SMOKE = False"
    nb.cells.insert(at[0] + 1, nbformat.v4.new_code_cell("SMOKE = True   # injected by tests/end_to_end/test_notebooks.py"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_executes(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    if name in SMOKE:
        _at_smoke_size(nb)
    t = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    elapsed = time.perf_counter() - t
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if o.output_type in ("display_data", "execute_result") and "image/png" in o.data]
    assert len(images) >= 2, "the charts were not drawn"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.name == "stdout")
    for words in EXPECTED[name]:
        assert words in text, f"{name} did not print {words!r}"
    print(f"{name}: {elapsed:.0f} s")     # a figure, not a limit: the machine is shared (the cell timeout bounds a hang)
    prose = [c for c in nb.cells if c.cell_type == "markdown"]
    assert len(prose) >= 5 and prose[0].source.startswith("# ")
