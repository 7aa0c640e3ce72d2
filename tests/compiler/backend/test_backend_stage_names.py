"""The MTIA stages a compiled kernel offers are the pipeline's own list (compiler/backend/pipeline.py):
every pass's IR can be asked for by name, a pass that runs twice (CSE) included."""
import numpy as np

import compiler as triton
import compiler.language as tl
from compiler.backend.pipeline import (
    OUTPUT_STAGES,
    backend_passes,
    pass_stage_names,
    stage_names,
)
from compiler.ir import parse_module, reprint
from simulator import get_config


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)


def test_every_stage_the_pipeline_lists_is_a_stage_of_the_compiled_kernel_and_holds_ir():
    x = np.arange(300, dtype=np.float32)
    compiled = scale_kernel.compile(x, x, x.size, BLOCK=128)
    names = stage_names(get_config())
    assert set(names) <= set(compiled.asm)
    for name in names:
        text = compiled.asm[name]
        assert text, name
        if name.startswith("mtia."):
            assert reprint(text) == text and parse_module(text).functions, name


def test_a_pass_run_twice_keeps_its_name_for_the_last_run_and_numbers_the_earlier_ones():
    names = stage_names(get_config())
    assert names.index("mtia.cse.1") < names.index("mtia.licm") < names.index("mtia.cse")
    assert "mtia.dce" in names and names[-len(OUTPUT_STAGES):] == list(OUTPUT_STAGES)
    assert len(set(names)) == len(names)
    assert pass_stage_names(backend_passes(get_config(), options=None)) == names[:-len(OUTPUT_STAGES)]


def test_with_hoisting_off_cse_runs_once_under_its_plain_name():
    from compiler.backend.options import BackendOptions
    names = pass_stage_names(backend_passes(get_config(), options=BackendOptions(licm=False)))
    assert names.count("mtia.cse") == 1 and "mtia.cse.1" not in names
