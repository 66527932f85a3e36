"""The ratios a row is held to (bench/TARGETS.md: ratios measured in one run, never an
absolute time): a Target evaluates one ratio of a case's results against a threshold."""


class Target:
    """ratio(results, ceiling) -> float or None; met when `ratio op threshold`."""

    def __init__(self, label, ratio, op, threshold, text):
        self.label, self.ratio, self.op, self.threshold, self.text = label, ratio, op, threshold, text

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


def time_ratio(num, den, op, threshold, text):
    def ratio(results, _ceiling):
        a, b = time_of(results, num), time_of(results, den)
        return None if a is None or b is None else a / b
    return Target("%s/%s time" % (num, den), ratio, op, threshold, text)


def faster_peer_ratio(threshold, text, label="myModule", peers=("CuPy", "PyTorch")):
    """label's time over the faster of the peers that ran in this case (the bar of
    issue 25: the faster GPU peer of the same run)."""
    def ratio(results, _ceiling):
        t = time_of(results, label)
        times = [p for p in (time_of(results, peer) for peer in peers) if p is not None]
        return None if t is None or not times else t / min(times)
    return Target("%s/faster peer time" % label, ratio, "<=", threshold, text)


#: The C floor of a one-element call (c_floor.measure), filled in by bench/run.py in the
#: same run before the verdicts; the n = 1 rows' targets are ratios to it.
C_FLOOR = {}


def floor_ratio(label, threshold, text, floor=C_FLOOR, which="median_s"):
    """label's time over a C floor measured in this run: `which` is "median_s" (launch +
    synchronize) or "scalar_median_s" (launch + 8-byte copy back + synchronize)."""
    def ratio(results, _ceiling):
        t, f = time_of(results, label), floor.get(which)
        return None if t is None or not f else t / f
    return Target("%s/C floor time" % label, ratio, "<=", threshold, text)


def ceiling_fraction(label, nbytes, threshold, text):
    def ratio(results, ceiling):
        t = time_of(results, label)
        if t is None or not ceiling:
            return None
        return nbytes / t / ceiling
    return Target("%s BW / ceiling" % label, ratio, ">=", threshold, text)
