"""Every backend stage of every library kernel is complete as text: it parses back to itself, and the
later stages run from the text alone give the same program."""
import pytest

from compiler.backend.passes.allocate_ls import AllocateLocalStore
from compiler.backend.pipeline import emit_program
from compiler.ir import parse_module, reprint
from simulator.config import load_config

from library_stages import library_stages

KERNELS = sorted(library_stages())


def _asm(prog) -> str:
    return "\n".join(line for line in prog.to_asm().splitlines() if not line.startswith(".meta"))


def test_the_library_launches_every_kernel_it_has():
    assert KERNELS == ["add_kernel", "attention_combine_kernel", "attention_fwd_kernel", "embedding_bag_kernel",
                       "gemv_kernel", "int8_matmul_kernel",
                       "layernorm_bwd_dwdb_kernel", "layernorm_bwd_dx_kernel", "layernorm_fwd_kernel", "matmul_kernel",
                       "matmul_tutorial_kernel", "quantize_rows_kernel", "row_sum_kernel", "softmax_kernel"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_each_backend_stage_round_trips_and_the_rest_runs_from_its_text(kernel):
    stages = library_stages()[kernel]
    backend = [name for name in stages if name.startswith("mtia.")]
    assert backend[-2:] == ["mtia.bufferize", "mtia.allocate-ls"], backend
    for name in backend:
        assert reprint(stages[name]) == stages[name], name
    cfg = load_config("mtia-small")
    want = "\n".join(line for line in stages["mtia-asm"].splitlines() if not line.startswith(".meta"))
    assert _asm(emit_program(parse_module(stages["mtia.allocate-ls"]), cfg)[0]) == want
    m = parse_module(stages["mtia.bufferize"])
    AllocateLocalStore(cfg.ls_bytes, 3, cfg.name).run(m)
    assert _asm(emit_program(m, cfg)[0]) == want
