# Repeats the pipeline-knob test's body (tests/test_multi_gpu.py KNOB_SCRIPT) ROUNDS
# times, checking every result exactly; prints one line a round.
import os, sys, time
import numpy as np
import myModule as mm
rounds = int(sys.argv[1]); deadline = time.time() + float(sys.argv[2])
n = 3 * 10**6 + 17
a = np.arange(n, dtype=np.float64)
b = np.linspace(-1.0, 1.0, n)
ref_add = a + b
bad = 0
for r in range(rounds):
    if time.time() > deadline: break
    for gpus in ([0], None):
        mm.set_devices(gpus)
        ok_add = np.array_equal(mm.add(a, b, device="cuda"), ref_add)
        ok_sum = float(mm.sum(a, device="cuda")) == float(n * (n - 1) // 2)
        s_b = mm.sum(b, device="cuda")
        if not (ok_add and ok_sum): bad += 1
    print("round", r, "add_ok", ok_add, "sum_ok", ok_sum, flush=True)
print("ROUNDS_DONE", r + 1, "BAD", bad, flush=True)
sys.exit(1 if bad else 0)
