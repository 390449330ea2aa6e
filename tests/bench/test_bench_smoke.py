"""Smoke test of the benchmark harness (bench/run.py): tiny sizes, numpy and the reference
engine only. It checks that the harness runs end to end and writes a well-formed table and
JSON; it makes no timing assertions (timings are for bench/run.py, not for the test-suite)."""

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(REPO, "bench")
TIMED = ("W1", "W2", "W3", "W4", "W5", "W6", "W7")


@pytest.fixture(scope="module")
def bench_modules():
    sys.path.insert(0, BENCH)
    try:
        import report
        import workloads

        yield report, workloads
    finally:
        sys.path.remove(BENCH)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "out.json"
    p = subprocess.run(
        [
            sys.executable,
            os.path.join(BENCH, "run.py"),
            "--tiny",
            "--libs",
            "reference,numpy",
            "--json",
            str(out),
        ],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout, json.loads(out.read_text())


def test_table_is_markdown_with_every_workload(tiny_run):
    stdout, _ = tiny_run
    lines = stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| W |"))
    assert lines[head + 1].startswith("|---")
    ncols = lines[head].count("|")
    rows = [line for line in lines[head + 2 :] if line.startswith("|")]
    assert all(r.count("|") == ncols for r in rows), "ragged table"
    for key in TIMED + ("build",):
        assert any(r.startswith(f"| {key} |") for r in rows), key
    assert "OPENBLAS_CORETYPE=" in stdout and "BLAS" in stdout


def test_json_has_raw_samples_and_summary(tiny_run):
    _, res = tiny_run
    meta = res["meta"]
    repeats = meta["sizes"]["repeats"]
    assert meta["profile"] == "tiny" and set(meta["env"]) >= {
        "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE",
    }
    for key in TIMED:
        rows = res["workloads"][key]["rows"]
        assert set(rows) >= {"numpy", "reference"}, key
        floor = rows["numpy"]
        assert floor["check"] == "oracle"
        n = meta["sizes"]["w6_repeats"] if key == "W6" else repeats
        assert len(floor["time_s"]) == n and all(t > 0 for t in floor["time_s"]), key
        assert floor["min_s"] <= floor["median_s"]
        if key not in ("W6", "W7"):
            assert floor["ratio"]["numpy"] == pytest.approx(1.0)
        ref = rows["reference"]
        # the reference engine is measured, or the row says why not
        assert ref.get("time_s") or ref.get("skip") or ref.get("error"), (key, ref)
        if ref.get("time_s"):
            assert ref["check"] in ("ok",) or ref["check"].startswith("grad"), (key, ref)


def test_reference_gradients_match_the_numpy_floor(tiny_run):
    _, res = tiny_run
    measured = {
        k: r["rows"]["reference"]
        for k, r in res["workloads"].items()
        if k in TIMED and r["rows"]["reference"].get("time_s")
    }
    # every workload erroring is a broken reference engine (or harness), not a reason to skip
    errors = {k: r["rows"]["reference"].get("error") for k, r in res["workloads"].items()
              if k in TIMED}
    assert measured, f"every reference workload errored or was skipped: {errors}"
    bad = {k: r["check"] for k, r in measured.items() if r["check"] != "ok"}
    assert not bad


def test_paired_ratios_and_target_status(bench_modules):
    report, _ = bench_modules
    assert report.paired([2.0, 4.0, 9.0], [1.0, 2.0, 3.0]) == [2.0, 2.0, 3.0]
    res = {
        "meta": {},
        "workloads": {
            "W1": {
                "desc": "",
                "rows": {
                    "compiled": {"label": "transgrad", "time_s": [1.0, 1.0, 1.0], "check": "ok"},
                    "numpy": {"label": "numpy", "time_s": [1.0, 2.0, 1.0], "check": "oracle"},
                    "torch": {"label": "torch", "time_s": [10.0, 4.0, 5.0], "check": "ok"},
                },
            }
        },
    }
    report.summarize(res)
    w = res["workloads"]["W1"]
    # median of per-repeat ratios (0.1, 0.25, 0.2), not the ratio of medians (1 / 5)
    assert w["rows"]["compiled"]["ratio"]["torch"] == pytest.approx(0.2)
    assert w["status"] == "met"
    w["rows"]["torch"]["time_s"] = [2.0, 2.0, 2.0]
    report.summarize(res)
    assert w["status"] == "missed"


def test_throughput_and_rss_targets(bench_modules):
    report, _ = bench_modules

    def rows(**times):
        return {n: {"label": n, "time_s": t, "check": "ok"} for n, t in times.items()}

    # W2 is "≥ 1.0× torch GB/s": a time ratio of 0.9 meets it, 1.1 misses it
    res = {"meta": {}, "workloads": {"W2": {"desc": "", "rows": rows(compiled=[0.9], torch=[1.0])}}}
    report.summarize(res)
    assert res["workloads"]["W2"]["status"] == "met"
    res["workloads"]["W2"]["rows"] = rows(compiled=[1.1], torch=[1.0])
    report.summarize(res)
    assert res["workloads"]["W2"]["status"] == "missed"
    # W6: fast enough but more chain memory than torch
    w6 = rows(compiled=[0.4], torch=[1.0])
    w6["compiled"]["rss_delta_kb"], w6["torch"]["rss_delta_kb"] = [200], [100]
    res = {"meta": {}, "workloads": {"W6": {"desc": "", "rows": w6}}}
    report.summarize(res)
    assert res["workloads"]["W6"]["status"] == "missed (time ok, RSS over)"
    res["meta"] = {"date": "", "profile": "", "header": []}
    assert "missed (time ok, RSS over)" in report.markdown(res)
