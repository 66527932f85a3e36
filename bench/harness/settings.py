"""How long and how often a run measures: the settings of one run (--quick or not)."""


class Settings:
    def __init__(self, quick):
        self.quick = quick
        self.repeats_gpu = 5 if quick else 11
        self.repeats_host = 3 if quick else 5
        self.repeats_host_big = 2 if quick else 3     # NumPy/CuPy/torch at n = 1e8
        self.min_time = 2e-3 if quick else 5e-3       # seconds per repeat (loop total)
        self.max_inner = 20000
        if quick:
            self.sweep_dev = [2**k for k in (10, 14, 18, 22, 26)]
            self.sweep_host = [10**3, 10**5, 10**7, 10**8]
        else:
            self.sweep_dev = [2**k for k in range(10, 28)]
            self.sweep_host = [10**k for k in range(3, 9)]
