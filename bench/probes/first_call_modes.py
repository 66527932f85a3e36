"""Where the first call of an operation goes: the fresh-process child of
bench/op_rows.py (every operation's first and warm call) under the CUDA module
loading modes given on the command line, one process each, printed per operation
in table order with the op bundle (translation unit, hence CUDA module) it lives in.

    python3 bench/probes/first_call_modes.py BUILD_GEN_DIR LAZY EAGER
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bundles(gen_dir):
    """Operation file stem -> bundle index, from the generated bundle sources."""
    where = {}
    for path in glob.glob(os.path.join(gen_dir, "ops_bundle_*.cu")):
        k = int(re.search(r"ops_bundle_(\d+)\.cu$", path).group(1))
        for stem in re.findall(r'#include\s+"[^"]*ops/(\w+)\.cu"', open(path).read()):
            where[stem] = k
    return where


def run(mode):
    env = dict(os.environ, CUDA_MODULE_LOADING=mode, CUDA_DISABLE_PTX_JIT="1", PYTHONPATH=ROOT)
    code = "import sys; sys.path.insert(0, %r); from bench.op_rows import first_call_child; first_call_child()" % ROOT
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(gen_dir, modes):
    where = bundles(gen_dir)
    for mode in modes:
        res = run(mode)
        rows = res["ops"]
        over = [(r["first_s"] - r["warm_s"]) * 1e3 for r in rows[1:]]
        print("== CUDA_MODULE_LOADING=%s: process's first kernel %.2f ms over warm; later first calls over warm: "
              "median %.3f ms, max %.3f ms, %d of %d over 1 ms"
              % (mode, res["library_load_s"] * 1e3, sorted(over)[len(over) // 2], max(over),
                 sum(o > 1 for o in over), len(over)))
        for r in rows:
            print("  %-22s bundle %-3s first %8.3f ms  warm %7.1f us  over %8.3f ms%s"
                  % (r["name"], where.get(r["name"], "?"), r["first_s"] * 1e3, r["warm_s"] * 1e6,
                     (r["first_s"] - r["warm_s"]) * 1e3, "" if r["correct"] else "  WRONG"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["LAZY", "EAGER"])
