"""MLPerf DLRM-v2 as mtiasim.models.dlrm builds it: the published shapes on the meta device, and (slow) its
estimate at a small size, where Zipf indices find more of their rows in the LLC than uniform ones."""
import pytest
import torch

from mtiasim.models import dlrm


def test_the_model_has_mlperfs_shapes_and_allocates_nothing():
    model, (dense, indices) = dlrm.make_dlrm_v2()
    assert all(p.is_meta for p in model.parameters())
    rows = [e.weight.shape[0] for e in model.emb]
    assert len(rows) == 26 and max(rows) == 40_000_000 and sum(rows) == 204_184_588
    assert {tuple(e.weight.shape[1:]) for e in model.emb} == {(128,)} and model.emb[0].weight.dtype == torch.float16
    assert sum(r * 128 * 2 for r in rows) / 1e9 == pytest.approx(52.3, abs=0.1)      # fits 96 GB of device arrays
    assert [tuple(i.shape) for i in indices][:3] == [(2048, 3), (2048, 2), (2048, 1)] and indices[20].shape[1] == 100
    linears = [m for m in model.bottom if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == [(13, 512), (512, 256), (256, 128)]
    assert [(v.in_features, v.out_features) for v in model.cross.v] == [(3456, 512)] * 3
    top = [m for m in model.top if isinstance(m, torch.nn.Linear)]
    assert [m.out_features for m in top] == [1024, 1024, 512, 256, 1] and top[0].in_features == 3456
    with torch.device("meta"):
        assert model(dense, indices).shape == (2048, 1)


@pytest.mark.slow
def test_zipf_indices_hit_the_llc_more_than_uniform_ones():
    from compiler.inductor import estimate
    model, inputs = dlrm.make_dlrm_v2(batch=32, rows_cap=20_000)
    rates = {}
    for dist in ("uniform", ("zipf", 1.2)):
        report = estimate(model, *inputs, index_distribution=dist)
        rates[str(dist)] = report.llc_by_op_class()["embedding"]["hit_rate"]
        assert report.memory_moves()["drained_bytes"] > 0
    assert rates["('zipf', 1.2)"] > rates["uniform"]
