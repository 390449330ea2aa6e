"""Statistics and rendering: raw samples in, a markdown table (and the JSON's summary) out.

Input: the results dict built by run.py: ``results["workloads"][key]["rows"][lib]`` holds the
raw per-repeat samples (``time_s``, and per workload ``metric``, ``rss_kb``, ...). Output:
``summarize`` adds medians, minima, paired ratios and the target status in place;
``markdown`` renders the table and its notes.

Note [Paired ratios]: repeat r of every library ran in the same round (round-robin, see
run.py), so ``time[lib][r] / time[base][r]`` compares runs made under the same machine state.
The reported ratio is the median over r of those per-repeat ratios, not the ratio of medians.
A ratio below 1 means faster than the baseline.
"""

from __future__ import annotations

import statistics
from typing import Any

from workloads import TARGETS

BUSY = 0.10  # share of the CPUs used by other processes above which timings are flagged


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def paired(a: list[float], b: list[float]) -> list[float]:
    return [x / y for x, y in zip(a, b) if x is not None and y]


def summarize(results: dict[str, Any]) -> None:
    for key, w in results["workloads"].items():
        rows = w["rows"]
        for row in rows.values():
            t = row.get("time_s") or []
            if not t:
                continue
            row["median_s"] = _median(t)
            row["min_s"] = min(t)
            if row.get("metric"):
                row["metric_median"] = _median(row["metric"])
            ratios = {}
            for base in ("numpy", "torch"):
                bt = rows.get(base, {}).get("time_s")
                if bt and w.get("ratios", True) and row.get("size") == rows[base].get("size"):
                    ratios[base] = paired(t, bt)
            row["ratio_samples"] = ratios
            row["ratio"] = {b: _median(r) for b, r in ratios.items() if r}
            if "rss_delta_kb" in row and "rss_delta_kb" in rows.get("torch", {}):
                rr = paired(row["rss_delta_kb"], rows["torch"]["rss_delta_kb"])
                row["rss_ratio_torch"] = _median(rr)
        w["status"] = _status(key, rows)
        if w["status"] and (w.get("others_cpu") or 0) > BUSY:
            w["status"] += " (machine busy)"


def _status(key: str, rows: dict[str, Any]) -> str:
    tgt = TARGETS.get(key)
    if tgt is None:
        return ""
    row = rows.get("compiled")
    if not row or row.get("skip"):
        return "n/a: transgrad not measured"
    if row.get("error"):
        return "missed: failed"
    if key == "W6-1M":
        return "met" if row.get("time_s") else "missed"
    if key == "W7":
        # Note [W7 on two cores]: with its intra-op pool on, one thread already spreads a
        # 200k-element op over both cores, so two threads cannot reach 2x its throughput on a
        # 2-core machine; the same run with one intra-op thread measures what the target is
        # about, the engine letting Python threads run at once. Both are judged and shown.
        def judged(r: dict[str, Any] | None) -> str | None:
            s = _median((r or {}).get("metric") or [])
            return None if s is None else ("met" if s >= tgt.bound else "missed")

        default, single = judged(row), judged(rows.get("compiled-1t"))
        if default is None:
            return "n/a"
        return default if single is None else f"{default}; 1 intra-op thread: {single}"
    r = row.get("ratio", {}).get(tgt.baseline)
    if r is None:
        return f"n/a: no {tgt.baseline} row"
    ok = (1.0 / r >= tgt.bound) if tgt.higher_is_better else (r <= tgt.bound)
    s = "met" if ok else "missed"
    if key == "W6":
        rss = row.get("rss_ratio_torch")
        rss_ok = rss is not None and rss <= 1.0
        if not (ok and rss_ok):
            s = f"missed (time {'ok' if ok else 'over'}, RSS {'ok' if rss_ok else 'over'})"
    if row.get("check", "ok") != "ok":
        s += " (grads wrong)"
    return s


# ---------------------------------------------------------------------------------------------
# Rendering


def fmt_time(s: float | None) -> str:
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_num(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"


def fmt_ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}×"


def _metric(key: str, row: dict[str, Any], unit: str) -> str:
    if key.startswith("W6"):
        peak = _median(row.get("rss_peak_kb") or [])
        delta = _median(row.get("rss_delta_kb") or [])
        s = f"peak RSS {fmt_num(peak and peak / 1024)} MB, Δ {fmt_num(delta and delta / 1024)} MB"
        if row.get("rss_ratio_torch") is not None:
            s += f" ({row['rss_ratio_torch']:.2f}× torch Δ)"
        return s
    if key == "W7":
        two = _median(row.get("two_s") or [])
        return f"speedup {fmt_num(row.get('metric_median'))}× (2 threads: {fmt_time(two)})"
    m = row.get("metric_median")
    if m is None or unit == "ms/step":  # W3-W5: the headline is the time itself
        return "—"
    return f"{fmt_num(m)} {unit}"


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    out: list[str] = [f"## transgrad benchmarks — {meta['date']}, profile `{meta['profile']}`", ""]
    out += [f"- {line}" for line in meta["header"]]
    out += [
        "",
        "| W | what | library | median | min | metric (median) | × numpy | × torch | target "
        + "| status | grads |",
        "|---|---|---|---:|---:|---|---:|---:|---|---|---|",
    ]
    notes: list[str] = []

    def note(text: str) -> str:
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    for key, w in results["workloads"].items():
        first = True
        tgt = TARGETS.get(key)
        for row in w["rows"].values():
            what = w["desc"] if first else ""
            if first and (w.get("others_cpu") or 0) > BUSY:
                what += f" (**others used {w['others_cpu']:.0%} CPU**)"
            target = tgt.text if (first and tgt) else ""
            status = w.get("status", "") if first else ""
            label = row["label"]
            if row.get("skip") or row.get("error"):
                msg = row.get("skip") or row.get("error")
                how = "skipped" if row.get("skip") else "**failed**"
                out.append(
                    f"| {key if first else ''} | {what} | {label} | {how} {note(msg)} "
                    f"| | | | | {target} | {status} | |"
                )
                first = False
                continue
            if row.get("note"):
                label += " " + note(row["note"])
            check = row.get("check", "")
            if check not in ("ok", "oracle", ""):
                check = "**MISMATCH** " + note(f"{key} {row['label']}: {check}")
            ratio = row.get("ratio", {})
            out.append(
                f"| {key if first else ''} | {what} | {label} | {fmt_time(row.get('median_s'))} "
                f"| {fmt_time(row.get('min_s'))} | {_metric(key, row, w.get('unit', ''))} "
                f"| {fmt_ratio(ratio.get('numpy'))} | {fmt_ratio(ratio.get('torch'))} "
                f"| {target} | {status} | {check} |"
            )
            first = False
        for n in w.get("notes", []):
            note(f"{key}: {n}")
    out.append("")
    out += [f"[{i + 1}] {n}" for i, n in enumerate(notes)]
    return "\n".join(out) + "\n"
