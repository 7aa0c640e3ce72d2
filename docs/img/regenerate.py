"""Regenerate the charts in docs/img/ that the README shows, through the command line as a user would run it:

    python docs/img/regenerate.py            (from the repository root; a few minutes, timing only)

roofline.png: ten library workloads at mid-size shapes on MTIA 2i and MTIA v1 (20 runs, labelled by shape);
utilization.png: the same runs' engine utilisation, grouped by config, a hue per workload;
model_roofline.png: the kernels of examples/my_model.py through Inductor, numbered as `mtiasim model` numbers
its table's rows. Check them by eye after regenerating: no label may cover another.
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RUNS = ["matmul:1024x1024x1024", "matmul_tutorial:1024x1024x512", "int8_gemm:1024x1024x1024", "gemv:1x2048x4096",
        "softmax:2048x1024", "layernorm_fwd:1024x2048", "attention:8x1024x64", "row_sum:64x16384",
        "vector_add:1048576", "embedding_bag:100000x128x128x20"]


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    from mtiasim.cli import main as mtiasim
    steps = [["roofline", *RUNS, "--config", "mtia-2i", "--config", "mtia-v1", "-o", str(HERE / "roofline.png"),
              "--utilization", str(HERE / "utilization.png")],
             ["model", "examples/my_model.py", "-o", str(HERE / "model_roofline.png")]]
    for argv in steps:
        print("mtiasim " + " ".join(argv), flush=True)
        code = mtiasim(argv)
        if code:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
