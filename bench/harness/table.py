"""The results as a table: times and bandwidths formatted, one row a case with its
ratios and verdicts, printed as text or written as Markdown."""
from .contenders import COLUMNS

HEADERS = ("case",) + COLUMNS + ("ratio", "target", "result")


def fmt_time(s):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale or unit == "ns":
            v = s / scale
            return ("%.3g %s" % (v, unit)) if v < 1000 else ("%.0f %s" % (v, unit))
    return str(s)


def fmt_bw(bps):
    if bps >= 1e12:
        return "%.2f TB/s" % (bps / 1e12)
    if bps >= 1e9:
        return "%.3g GB/s" % (bps / 1e9)
    return "%.3g MB/s" % (bps / 1e6)


def fmt_cell(res, nbytes):
    if res is None:
        return "-"
    if res.get("status") == "skipped":
        return "skipped"
    if res.get("status") == "error":
        return "error"
    t = res["median_s"]
    return "%s (%s)" % (fmt_time(t), fmt_bw(nbytes / t)) if nbytes else fmt_time(t)


def table_rows(case_results, ceiling):
    """One row a case: {case, cells, ratio, target, result, evals}. Rows measured
    outside the cases (first calls, the C floor) are built alike by their modules."""
    rows = []
    for case, results in case_results:
        cells = [fmt_cell(results.get(c), case.nbytes) for c in COLUMNS]
        ratios, targets, verdicts, evals = [], [], [], []
        for tg in case.targets:
            value, verdict = tg.evaluate(results, ceiling)
            ratios.append("%s %s" % (tg.label, "n/a" if value is None else "%.2fx" % value))
            targets.append(tg.text)
            verdicts.append(verdict)
            evals.append({"label": tg.label, "ratio": value, "op": tg.op,
                          "threshold": tg.threshold, "target": tg.text, "verdict": verdict})
        mine = results.get("myModule") or {}
        if mine.get("paired_floor_s"):
            ratios.append("%s timed beside its rounds: %s"
                          % (mine["paired_floor_ref"], fmt_time(mine["paired_floor_s"])))
        if case.group == "ceiling":
            ratios.append(case.note)
            targets.append("ceiling = best: %s" % (fmt_bw(ceiling) if ceiling else "n/a"))
            verdicts.append("info")
        elif not case.targets:
            ratios.append(case.note)
            targets.append("(informational)")
            verdicts.append("info")
        elif case.note:
            ratios.append(case.note)
        rows.append({"case": case.name, "cells": cells, "ratio": "; ".join(ratios),
                     "target": "; ".join(targets), "result": "; ".join(verdicts),
                     "evals": evals})
    return rows


def text_table(rows):
    data = [[r["case"]] + r["cells"] + [r["ratio"], r["target"], r["result"]] for r in rows]
    widths = [max(len(h), *(len(d[i]) for d in data)) for i, h in enumerate(HEADERS)]
    line = "  ".join(h.ljust(w) for h, w in zip(HEADERS, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    for d in data:
        out.append("  ".join(x.ljust(w) for x, w in zip(d, widths)).rstrip())
    return "\n".join(out)


def md_table(rows):
    out = ["| " + " | ".join(HEADERS) + " |", "|" + " --- |" * len(HEADERS)]
    for r in rows:
        cells = [r["case"]] + r["cells"] + [r["ratio"], r["target"], r["result"]]
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(out)
