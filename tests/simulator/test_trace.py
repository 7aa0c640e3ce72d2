"""Timeline traces are valid trace-event JSON, show every command on the right track, and stay
bounded on big runs."""
import json
from collections import defaultdict

import pytest

from mtiasim.workloads import get_workload
from simulator import load_config
from simulator.machine import Machine
from simulator.memory.circular_buffer import CircularBuffer
from simulator.trace import Tracer

REQUIRED = {  # keys each phase must carry, with their types
    "X": {"name": str, "ts": (int, float), "dur": (int, float), "pid": int, "tid": int},
    "B": {"name": str, "ts": (int, float), "pid": int, "tid": int},
    "E": {"ts": (int, float), "pid": int, "tid": int},
    "C": {"name": str, "ts": (int, float), "pid": int, "args": dict},
    "M": {"name": str, "pid": int, "args": dict},
    "s": {"id": int, "ts": (int, float), "pid": int, "tid": int},
    "f": {"id": int, "ts": (int, float), "pid": int, "tid": int},
}


def validate(trace: dict) -> None:
    """The checks Perfetto's JSON importer relies on."""
    assert isinstance(trace, dict) and isinstance(trace["traceEvents"], list)
    named_threads, named_procs = set(), set()
    used_threads = set()
    last_x = {}
    open_spans = defaultdict(list)
    slices = defaultdict(list)
    flows = defaultdict(dict)
    for e in trace["traceEvents"]:
        ph = e["ph"]
        assert ph in REQUIRED, f"unexpected phase {ph}"
        for key, typ in REQUIRED[ph].items():
            assert isinstance(e.get(key), typ) and not isinstance(e.get(key), bool), (key, e)
        if ph == "M":
            assert e["name"] in ("process_name", "thread_name", "process_sort_index", "thread_sort_index")
            if e["name"] == "thread_name":
                named_threads.add((e["pid"], e["tid"]))
                assert isinstance(e["args"]["name"], str) and e["args"]["name"]
            if e["name"] == "process_name":
                named_procs.add(e["pid"])
            continue
        assert e["ts"] >= 0
        if ph == "C":
            assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values())
            continue
        track = (e["pid"], e["tid"])
        used_threads.add(track)
        if ph in "sf":
            assert ph not in flows[e["id"]], f"flow id {e['id']} has two {ph} events"
            flows[e["id"]][ph] = e
            continue
        if ph == "X":
            slices[track].append((e["ts"], e["ts"] + e["dur"]))
            assert e["dur"] >= 0
            assert e["ts"] >= last_x.get(track, 0.0), f"X events out of order on {track}"
            end = e["ts"] + e["dur"]
            assert end <= last_x.get((track, "end"), end) or e["ts"] >= last_x.get((track, "end"), 0) - 1e-9, \
                f"overlapping slices on {track}"
            last_x[track], last_x[(track, "end")] = e["ts"], max(end, last_x.get((track, "end"), 0))
        elif ph == "B":
            open_spans[track].append(e["ts"])
        else:
            assert open_spans[track], f"E without B on {track}"
            assert e["ts"] >= open_spans[track].pop()
    assert not any(open_spans.values()), "B without E"
    # every flow arrow has both ends, each inside a slice of its track, and points forward in time
    for fid, ends in flows.items():
        assert set(ends) == {"s", "f"}, f"flow {fid} lacks an end: {ends}"
        for e in ends.values():
            assert any(t0 <= e["ts"] <= t1 for t0, t1 in slices[(e["pid"], e["tid"])]), f"flow {fid} end outside slices"
        assert ends["f"].get("bp") == "e" and ends["s"]["ts"] <= ends["f"]["ts"]
    assert used_threads <= named_threads, f"tracks without a thread_name: {used_threads - named_threads}"
    assert {p for p, _ in used_threads} <= named_procs


def _names(trace, kind):
    return {(e["pid"], e["args"]["name"]) for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == kind}


@pytest.fixture(scope="module")
def softmax_trace():
    tracer = Tracer()
    report = get_workload("softmax_isa")(Machine(load_config("mtia-small"), trace=tracer), (256, 512), True)
    return tracer.to_dict(), report


def test_trace_is_valid_and_has_every_track(softmax_trace):
    trace, report = softmax_trace
    validate(trace)
    procs = _names(trace, "process_name")
    assert {(1, "PE 0 (0, 0)"), (2, "PE 1 (0, 1)"), (3, "PE 2 (1, 0)"), (4, "PE 3 (1, 1)")} <= procs
    threads = _names(trace, "thread_name")
    for pid in (1, 2, 3, 4):
        assert {(pid, n) for n in ("core", "DPE", "SE", "RE", "MLU", "DMA")} <= threads
    json.dumps(trace)                                              # plain JSON all the way down


def test_one_complete_event_per_command_on_its_engine(softmax_trace):
    trace, report = softmax_trace
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == report.commands
    by_cat = defaultdict(int)
    for e in xs:
        by_cat[e["cat"]] += 1
        assert e["args"]["program"] and isinstance(e["args"]["pc"], int)
    blocks = report.commands // 7
    assert dict(by_cat) == {"dma": 2 * blocks, "re": 2 * blocks, "se": 3 * blocks}
    assert {e["name"] for e in xs} == {"dma.in", "re.reduce", "se.sub", "se.exp", "se.div", "dma.out"}
    assert any(e["args"]["instruction"].startswith("se.exp cb3.push:f32[") for e in xs)
    # times are microseconds at the config's clock: the last command ends with the run
    end = max(e["ts"] + e["dur"] for e in xs)
    assert end == pytest.approx(report.seconds * 1e6, rel=0.01)
    assert trace["otherData"]["truncated"] is False and trace["otherData"]["commands_seen"] == report.commands


def test_counters_show_cb_occupancy_and_dma_bandwidth(softmax_trace):
    trace, report = softmax_trace
    cs = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    cb = [e for e in cs if e["name"].startswith("CB 0 x_tiles")]
    assert cb and max(e["args"]["slots"] for e in cb) <= 2 and min(e["args"]["slots"] for e in cb) == 0
    bw = [e for e in cs if e["name"] == "DMA bandwidth"]
    assert bw and max(e["args"]["GB/s"] for e in bw) > 0
    # the bytes under the per-PE bandwidth curves are the bytes the DMA engines moved
    window_s = trace["otherData"]["bandwidth_window_us"] * 1e-6
    assert sum(e["args"]["GB/s"] * 1e9 * window_s for e in bw) == pytest.approx(report.bytes["dma"], rel=1e-6)


def test_flow_arrows_run_from_each_slot_writer_to_its_readers():
    tracer = Tracer()
    report = get_workload("matmul")(Machine(load_config("mtia-small"), trace=tracer), (128, 128, 128), False)
    trace = tracer.to_dict()
    validate(trace)
    at = {(e["pid"], e["tid"], e["ts"]): e["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    ends = {(e["id"], e["ph"]): at[(e["pid"], e["tid"], e["ts"])] for e in trace["traceEvents"] if e["ph"] in "sf"}
    pairs = defaultdict(int)
    for fid in {i for i, _ in ends}:
        pairs[(ends[(fid, "s")], ends[(fid, "f")])] += 1
    # 128^3 in 64x64x32 tiles on 4 PEs: each program's 4 K steps run as 3 dpe.mm (steps 0, 1-2 and 3:
    # compiler/backend/passes/coalesce_k.py) that two DMA tiles each feed; the DPE's accumulator starts
    # from an SE fill and ends in an SE convert that the DMA stores
    programs = report.grid[0]
    assert pairs == {("dma.in", "dpe.mm"): 6 * programs, ("se.fill", "dpe.mm"): programs,
                     ("dpe.mm", "se.mov"): programs, ("se.mov", "dma.out"): programs}
    assert trace["otherData"]["flows"] == trace["otherData"]["flows_recorded"] == sum(pairs.values())
    off = Tracer(flows=False)
    get_workload("matmul")(Machine(load_config("mtia-small"), trace=off), (128, 128, 128), False)
    assert not [e for e in off.to_dict()["traceEvents"] if e["ph"] in "sf"]


def test_program_spans_on_the_core_track(softmax_trace):
    trace, report = softmax_trace
    begins = [e for e in trace["traceEvents"] if e["ph"] == "B"]
    assert len(begins) == report.grid[0] and all(e["tid"] == 0 for e in begins)


def test_pe_filter_keeps_only_those_pes():
    tracer = Tracer(pes=[1])
    report = get_workload("softmax_isa")(Machine(load_config("mtia-small"), trace=tracer), (256, 512), False)
    trace = tracer.to_dict()
    validate(trace)
    pes = {e["pid"] for e in trace["traceEvents"] if e["ph"] in "XBE"}
    assert pes == {2}
    assert 0 < len([e for e in trace["traceEvents"] if e["ph"] == "X"]) < report.commands


def test_tracing_does_not_change_timing_and_costs_nothing_when_off():
    cfg = load_config("mtia-small")
    plain = get_workload("gemm")(Machine(cfg), (256, 256, 128))
    traced = get_workload("gemm")(Machine(cfg, trace=Tracer()), (256, 256, 128))
    assert plain.cycles == traced.cycles and plain.bytes == traced.bytes
    assert CircularBuffer.on_release is None            # the release hook is unset unless tracing


def test_big_gemm_trace_stays_under_the_cap(tmp_path):
    cap = 5000
    tracer = Tracer(max_events=cap)
    report = get_workload("gemm")(Machine(load_config("mtia-2i"), trace=tracer, numerics=False),
                                  (2048, 2048, 2048), False)
    info = tracer.save(tmp_path / "gemm.json")
    trace = json.loads((tmp_path / "gemm.json").read_text())
    validate(trace)
    assert len(trace["traceEvents"]) <= cap
    assert info["truncated"] is True and info["sampling_stride"] > 1
    assert info["commands_seen"] == report.commands > cap
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == pytest.approx(report.commands / info["sampling_stride"], rel=0.3)
    # sampled evenly: kept commands still span the whole run
    assert max(e["ts"] + e["dur"] for e in xs) > 0.9 * report.seconds * 1e6


def test_launches_follow_one_another():
    tracer = Tracer()
    m = Machine(load_config("mtia-small"), trace=tracer)
    first = get_workload("softmax_isa")(m, (64, 256), False)
    get_workload("softmax_isa")(m, (64, 256), False)
    trace = tracer.to_dict()
    validate(trace)
    launches = trace["otherData"]["launches"]
    assert len(launches) == 2 and launches[1]["start_us"] >= first.seconds * 1e6 * 0.99
