"""The notebooks run top to bottom without errors (each in about a minute on two idle cores)."""
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


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_executes(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
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
