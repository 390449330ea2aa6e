"""The hostile battery (issue 11): every case of hostile_cases.py on torch and on both engines,
in child processes (a crash or hang fails its case, not the run). Verdicts: Note [Hostile battery
verdicts] in hostile_battery.py.

KNOWN lists the cases that still differ from torch, each with why; they are strict xfails, so a
fix that makes one pass fails the run until it leaves the list.
"""

import hostile_battery as battery
import hostile_cases as cases
import pytest

KNOWN = {
    # Order-dependent in torch itself: unfold's windows overlap and torch does not detect it.
    "layout.unfold_overlap_add": "torch's own answer depends on its loop order",
}
# Cases where both engines answer correctly and torch raises only for a limit of its own.
EXTENSIONS = {
    "size.roll_min": "torch cannot represent the shift as a SymInt; the roll is still defined",
}

ENGINES = ("transgrad", "transgrad.reference")


@pytest.fixture(scope="module")
def outcomes():
    pytest.importorskip("torch")
    ids = list(cases.CASES)
    return {e: battery.run_cases(e, ids) for e in ("torch", *ENGINES)}


def _params():
    for cid in cases.CASES:
        for e in ENGINES:
            marks = []
            reason = KNOWN.get(cid) or KNOWN.get(f"{cid}@{e}")
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            yield pytest.param(cid, e, id=f"{cid}-{e.replace('transgrad.', '')}", marks=marks)


@pytest.mark.parametrize("cid, engine", list(_params()))
def test_case(outcomes, cid, engine):
    ok, why = battery.verdict(outcomes["torch"][cid], outcomes[engine][cid])
    if not ok and cid in EXTENSIONS and outcomes[engine][cid][0] == "ok":
        ok = True
    assert ok, why


def test_a_crash_is_caught_and_the_batch_continues():
    # The driver itself: a case that kills its child is a "crash", and the cases after it run.
    extra = {"_probe.abort": "__import__('os').abort()", "_probe.after": "1 + 1"}
    out = battery.run_cases("transgrad.reference", list(extra), extra=extra)
    assert out["_probe.abort"][0] == "crash"
    assert out["_probe.after"] == ["ok", ["scalar", 2]]
