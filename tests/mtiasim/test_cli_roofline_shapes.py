"""`mtiasim roofline` names the shape of every run in its labels and says where a shape came from: a workload
named alone runs the shape `mtiasim run` runs (its default), not a hidden small one."""
import json

from mtiasim.workloads import format_shape, get_workload

from cli_run import mtiasim_main


def test_labels_carry_shapes_and_a_named_workload_runs_its_default_shape(tmp_path, capsys):
    def roofline(*args):
        return mtiasim_main(capsys, "roofline", *args, "--config", "mtia-small", "-o", tmp_path / "r.png").stdout
    dpe = get_workload("dpe_loop")
    default = f"dpe_loop {format_shape(dpe, dpe.shape(None))}"
    text = roofline("dpe_loop", "softmax_isa:R=64,C=256")
    assert default in text and "softmax_isa 64x256" in text
    assert "shapes: its default shape where none was given" in text
    points = json.loads(roofline("dpe_loop", "softmax_isa:R=64,C=256", "--json"))["points"]
    assert [p["label"] for p in points] == [default, "softmax_isa 64x256"]
