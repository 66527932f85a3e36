"""Operations from the user's own folder (myModule.load), side by side in one run:

- softplus (float64, n = 2^26, device arrays): the loaded file against CuPy's
  ElementwiseKernel of the same expression and against the same file built
  in-tree (user_ops/softplus.cu, myModule.softplus); targets <= 1.0x CuPy and
  within 2% of in-tree;
- the first load of the file (empty cache, fresh process, one architecture: the
  GPU's) against the target 10 s, beside CuPy's first ElementwiseKernel call
  with an empty kernel cache (NVRTC) and a plain nvcc -shared of the file;
- a cached load in a fresh process (target <= 30 ms), beside CuPy's first call
  from its disk cache.

Every device time is the median of repeats of a host clock around a
synchronised call, the same way for every contender. Writes a Markdown table
to bench/results/load-<gpu>-<date>.md (and prints it).

    python bench/load_bench.py [--quick]
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOURCE = os.path.join(ROOT, "user_ops", "softplus.cu")
N = 1 << 26


def loaded_copy(folder):
    """user_ops/softplus.cu under another operation name (the in-tree one holds
    'softplus'); the functor and the kernels are the same."""
    with open(SOURCE) as f:
        text = f.read().replace("VA_ELEMENTWISE(softplus,", "VA_ELEMENTWISE(softplus_loaded,")
    path = os.path.join(folder, "softplus_loaded.cu")
    with open(path, "w") as f:
        f.write(text)
    return path


def child(code, env):
    """Runs `code` in a fresh Python; returns what it printed last, as a float."""
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return float(out.stdout.strip().splitlines()[-1])


def median_time(fn, sync, repeats):
    fn()
    sync()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)
    import myModule as mm

    if not mm.cuda_available():
        print("no usable GPU: the load benchmark needs one")
        return 1
    repeats = 5 if args.quick else 30
    env = dict(os.environ, PYTHONPATH=ROOT)
    work = tempfile.mkdtemp(prefix="load-bench-")
    rows = []
    try:
        src = loaded_copy(work)
        info = mm.device_info(0)
        arch = "%d%d" % info["compute_capability"]

        # First load: an empty cache, a fresh process, the GPU's architecture.
        cache = os.path.join(work, "cache")
        code = ("import time, myModule; t = time.perf_counter(); "
                "myModule.load(%r, arch=%r); print(time.perf_counter() - t)" % (src, arch))
        first = child(code, dict(env, MYMODULE_CACHE_DIR=cache))
        # Cached: the entry above, in fresh processes.
        cached = statistics.median(child(code, dict(env, MYMODULE_CACHE_DIR=cache))
                                   for _ in range(5))
        # Plain nvcc of the same file (the floor of any build).
        nvcc = mm.build.nvcc_path()
        t = time.perf_counter()
        subprocess.run([nvcc, "-std=c++17", "-O3", "-shared", "-Xcompiler", "-fPIC", "-DVA_MODULE",
                        '-DVA_MODULE_VERSION="x"', "-arch=sm_" + arch, "-I" + mm.get_include(),
                        "-o", os.path.join(work, "plain.so"), src,
                        os.path.join(mm.get_include(), "module_main.cu")], check=True)
        plain = time.perf_counter() - t

        cupy_first = cupy_cached = cupy_time = None
        try:
            import cupy  # noqa: F401

            ccache = os.path.join(work, "cupy-cache")
            ccode = ("import time, cupy; x = cupy.ones(1024); "
                     "k = cupy.ElementwiseKernel('T x', 'T y', 'y = x > 20 ? x + log1p(exp(-x)) : log1p(exp(x))', 'sp'); "
                     "cupy.cuda.Device().synchronize(); t = time.perf_counter(); k(x); "
                     "cupy.cuda.Device().synchronize(); print(time.perf_counter() - t)")
            cenv = dict(env, CUPY_CACHE_DIR=ccache)
            cupy_first = child(ccode, cenv)
            cupy_cached = statistics.median(child(ccode, cenv) for _ in range(5))
        except ImportError:
            pass

        ns = mm.load(src, arch=arch)
        rng = np.random.default_rng(0)
        host = rng.standard_normal(N) * 10
        d = mm.to_device(host)
        out = mm.empty(N, dtype=np.float64)
        sync = mm.synchronize
        loaded_time = median_time(lambda: ns.softplus_loaded(d, out=out), sync, repeats)
        intree_time = median_time(lambda: mm.softplus(d, out=out), sync, repeats)
        np.testing.assert_allclose(ns.softplus_loaded(d).get(), mm.softplus(d).get(), rtol=0, atol=0)
        if cupy_first is not None:
            import cupy

            k = cupy.ElementwiseKernel("T x", "T y", "y = x > 20 ? x + log1p(exp(-x)) : log1p(exp(x))", "sp")
            cx = cupy.asarray(host)
            cy = cupy.empty_like(cx)
            cupy_time = median_time(lambda: k(cx, cy), cupy.cuda.Device().synchronize, repeats)

        def verdict(ok):
            return "met" if ok else "MISSED"

        rows.append(("softplus float64 n=2^26, loaded", "%.1f us" % (loaded_time * 1e6),
                     "CuPy ElementwiseKernel %s; in-tree %.1f us" % (
                         "%.1f us" % (cupy_time * 1e6) if cupy_time else "n/a", intree_time * 1e6),
                     "loaded/CuPy %s (<= 1.0: %s); loaded/in-tree %.3f (within 2%%: %s)" % (
                         "%.3f" % (loaded_time / cupy_time) if cupy_time else "n/a",
                         verdict(cupy_time is not None and loaded_time <= cupy_time),
                         loaded_time / intree_time, verdict(abs(loaded_time / intree_time - 1) <= 0.02))))
        rows.append(("first load, empty cache, sm_%s" % arch, "%.2f s" % first,
                     "plain nvcc -shared %.2f s; CuPy first call (NVRTC) %s" % (
                         plain, "%.0f ms" % (cupy_first * 1e3) if cupy_first else "n/a"),
                     "first/10 s = %.2f (%s)" % (first / 10.0, verdict(first <= 10.0))))
        rows.append(("cached load, fresh process", "%.1f ms" % (cached * 1e3),
                     "CuPy first call from its disk cache %s" % (
                         "%.1f ms" % (cupy_cached * 1e3) if cupy_cached else "n/a"),
                     "cached/30 ms = %.2f (%s)" % (cached / 0.030, verdict(cached <= 0.030))))
        name = info["name"]
        lines = ["# myModule.load on %s (%s)" % (name, datetime.date.today().isoformat()), "",
                 "| row | myModule | beside it, same run | verdict |", "| --- | --- | --- | --- |"]
        lines += ["| %s |" % " | ".join(r) for r in rows]
        text = "\n".join(lines) + "\n"
        print(text)
        results = os.path.join(HERE, "results")
        os.makedirs(results, exist_ok=True)
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
        with open(os.path.join(results, "load-%s-%s.md" % (slug, datetime.date.today().isoformat())), "w") as f:
            f.write(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
