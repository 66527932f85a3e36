"""The ratios a row is held to (bench/TARGETS.md: ratios measured in one run, never an
absolute time): a Target evaluates one ratio of a case's results against a threshold.
The thresholds themselves are read from bench/TARGETS.md's table (`of`, below)."""
import os
import re


class Target:
    """ratio(results, ceiling) -> float or None; met when `ratio op threshold`."""

    def __init__(self, label, ratio, op, threshold, text, ref=None):
        self.label, self.ratio, self.op, self.threshold, self.text = label, ratio, op, threshold, text
        self.ref = ref  # what the ratio divides by (REF below), where it names one

    def evaluate(self, results, ceiling):
        try:
            value = self.ratio(results, ceiling)
        except (KeyError, TypeError, ZeroDivisionError):
            value = None
        if value is None:
            return None, "n/a"
        ok = value >= self.threshold if self.op == ">=" else value <= self.threshold
        return value, "met" if ok else "missed"


def time_of(results, label):
    """label's median seconds in a case's results, or None when it was not measured."""
    r = results.get(label)
    return r["median_s"] if r and "median_s" in r else None


#: The C floors of small calls (c_floor.measure: "median_s", launch + sync, and
#: "scalar_median_s", launch + 8-byte copy back + sync), filled in by bench/run.py in the
#: same run before the verdicts; the launch-floor and scalar-floor clauses divide by them
#: where the row has no floor of its own (rounds timed beside its repeats: FLOOR_REFS).
C_FLOOR = {}
FLOOR_REFS = ("launch-floor", "scalar-floor")


def floor_ref(case):
    """The C floor a case's targets divide by ('launch-floor' or 'scalar-floor'), or None."""
    refs = {t.ref for t in case.targets if t.ref in FLOOR_REFS}
    if len(refs) > 1:
        raise ValueError("%s: held to two C floors" % case.name)
    return refs.pop() if refs else None


def ceiling_fraction(label, nbytes, threshold, text):
    def ratio(results, ceiling):
        t = time_of(results, label)
        if t is None or not ceiling:
            return None
        return nbytes / t / ceiling
    return Target("%s BW / ceiling" % label, ratio, ">=", threshold, text)


# ---- the targets of bench/TARGETS.md ------------------------------------------------
# Every row's targets are read from one table of bench/TARGETS.md ("The targets make bench
# reads"): a key the row names, and clauses separated by ";", each one of
#   <= K x REF time          myModule's time over REF's, at most K
#   >= K x REF throughput    REF's time over myModule's, at least K
#   >= P% ceiling            myModule's bytes a second over the run's streaming ceiling
# where REF is faster-peer (the faster of CuPy and PyTorch that ran in the case), CuPy,
# PyTorch, NumPy, launch-floor or scalar-floor (the C floors, c_floor.py), or warm-call
# (the first-call rows' own ratio) or one-gpu (the two-GPU rows'). The clause is the text
# shown in the table.
TARGETS_MD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "TARGETS.md")
TABLE_TITLE = "## The targets make bench reads"
REFS = ("faster-peer", "CuPy", "PyTorch", "NumPy", "launch-floor", "scalar-floor", "warm-call", "one-gpu")
_CLAUSE = re.compile(r"^(<=|>=) ([0-9.]+)x (%s) (time|throughput)$" % "|".join(REFS))
_CEILING = re.compile(r"^>= ([0-9.]+)% ceiling$")
_TABLE = {}


def read_table(path=TARGETS_MD):
    """{key: [clause, ...]} from the table under TABLE_TITLE; ValueError on a malformed
    row, a repeated key or a clause outside the grammar."""
    with open(path) as f:
        text = f.read()
    if TABLE_TITLE not in text:
        raise ValueError("%s has no section %r" % (path, TABLE_TITLE))
    table = {}
    for line in text.split(TABLE_TITLE, 1)[1].splitlines()[1:]:
        if line.startswith("## "):
            break
        if not line.startswith("|") or line.startswith("| key") or line.startswith("| ---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            raise ValueError("TARGETS.md: a row of the targets table needs key | case | target: %r" % line)
        key, clauses = cells[0].strip("`"), [c.strip() for c in cells[2].split(";")]
        if key in table:
            raise ValueError("TARGETS.md: target key %r twice" % key)
        for clause in clauses:
            if not (_CLAUSE.match(clause) or _CEILING.match(clause)):
                raise ValueError("TARGETS.md: %r (key %s) is not a target clause" % (clause, key))
        table[key] = clauses
    return table


def table():
    if not _TABLE:
        _TABLE.update(read_table())
    return _TABLE


def _reference_time(results, ref, label):
    if ref == "faster-peer":
        times = [t for t in (time_of(results, p) for p in ("CuPy", "PyTorch")) if t is not None]
        return min(times) if times else None
    if ref in FLOOR_REFS:
        mine = results.get(label) or {}
        if mine.get("paired_floor_ref") == ref and mine.get("paired_floor_s"):
            return mine["paired_floor_s"]  # rounds of the floor beside the row's own
        return C_FLOOR.get("median_s" if ref == "launch-floor" else "scalar_median_s")
    return time_of(results, ref)


def clause_target(clause, nbytes=None, label="myModule"):
    """The Target of one clause of the grammar above."""
    m = _CEILING.match(clause)
    if m:
        if nbytes is None:
            raise ValueError("%r needs the case's bytes" % clause)
        return ceiling_fraction(label, nbytes, float(m.group(1)) / 100.0, clause)
    m = _CLAUSE.match(clause)
    if m is None:
        raise ValueError("%r is not a target clause" % clause)
    op, k, ref, measure = m.group(1), float(m.group(2)), m.group(3), m.group(4)
    if ref in ("warm-call", "one-gpu"):
        raise ValueError("%r: the rows of this clause evaluate their own ratio (threshold())" % clause)

    def ratio(results, _ceiling):
        mine, theirs = time_of(results, label), _reference_time(results, ref, label)
        if mine is None or not theirs:
            return None
        return mine / theirs if measure == "time" else theirs / mine
    shown = "%s/%s time" % (label, ref) if measure == "time" else "%s/%s time" % (ref, label)
    return Target(shown, ratio, op, k, clause, ref)


def of(key, nbytes=None):
    """The Targets the table holds the rows of `key` to."""
    try:
        clauses = table()[key]
    except KeyError:
        raise KeyError("bench/TARGETS.md has no target %r" % key) from None
    return [clause_target(c, nbytes) for c in clauses]


def threshold(key):
    """The number of key's one clause (for rows that evaluate their own ratio)."""
    clauses = table()[key]
    if len(clauses) != 1:
        raise ValueError("target %r has %d clauses, one expected" % (key, len(clauses)))
    m = _CLAUSE.match(clauses[0]) or _CEILING.match(clauses[0])
    return float(m.group(2) if m.re is _CLAUSE else m.group(1)), clauses[0]
