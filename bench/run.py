#!/usr/bin/env python3
"""Side-by-side benchmark: myModule against NumPy (CPU), CuPy and PyTorch.

Runs every case of bench/TARGETS.md (peers table and targets table) in ONE process, plus
rows derived from the op table (myModule.ops, see bench/op_table_rows.py: every elementwise
operation at n = 2^26, axpy at n = 1e8 beside a CuPy ElementwiseKernel and 2.0 * x + y,
every reduction at n = 1e8, and the first call of every operation in a fresh process),
prints one table (case | myModule | NumPy | CuPy | PyTorch | ratio | target | result)
and writes, under --out (default bench/results):
  <gpu-slug>-<YYYY-MM-DD>.md   the table in Markdown with a header (GPU, versions, method)
  <gpu-slug>-<YYYY-MM-DD>.png  throughput against n for add (device arrays; NumPy in/out)
  latest.json                  every raw number
and copies the three files into $OUT when that is set.

This file is the command line and the list of rows (ROWS: which modules contribute
rows, in the table's order). The timing method is described in bench/harness/timing.py;
the rest of the harness (inputs, contenders, tables, files written) is bench/harness/.
Usage: python3 bench/run.py [--quick] [--out DIR] [--filter REGEX] [--no-sweep]
"""
import argparse
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
for _p in (ROOT, BENCH):
    if _p not in sys.path:
        sys.path.insert(0, _p)

# noqa: E402 below - the harness and the rows are found through BENCH on sys.path
from harness.builders import Builders  # noqa: E402
from harness.contenders import COLUMNS, load_libs, release_gpu_memory  # noqa: E402
from harness.environment import environment  # noqa: E402
from harness.inputs import CEILING_ELEMS, N_1E8, Data  # noqa: E402
from harness.report import print_table, write_results  # noqa: E402
from harness.runner import Runner, ceiling_from  # noqa: E402
from harness.settings import Settings  # noqa: E402
from harness.table import fmt_time, table_rows  # noqa: E402
from harness.targets import C_FLOOR  # noqa: E402
import array_api_rows  # noqa: E402 - the array API namespace's rows
import array_rows  # noqa: E402 - creation and slicing of device arrays
import axis_rows  # noqa: E402 - reductions over axes
import c_floor  # noqa: E402 - the C launch + sync floor of the n = 1 rows
import dask_rows  # noqa: E402 - Dask arrays
import dispatch_rows  # noqa: E402 - NumPy dispatch rows
import dtype_rows  # noqa: E402 - the narrow integer dtypes (issue 26)
import first_call_rows  # noqa: E402 - first calls in a fresh process
import matmul_rows  # noqa: E402 - the matrix product (issue 26)
import multi_gpu_rows  # noqa: E402 - host data on every GPU
import op_table_rows  # noqa: E402 - the op table's rows
import peers_table_rows  # noqa: E402 - bench/TARGETS.md's peers table
import sort_scan_rows  # noqa: E402 - sort, argsort, cumulative_sum (issue 26)

# The rows, in the table's order: each is called with (Builders, libs) and returns Cases.
ROWS = (
    peers_table_rows.ceiling_cases,
    peers_table_rows.cases,
    op_table_rows.cases,
    dispatch_rows.cases,
    array_api_rows.cases,
    multi_gpu_rows.cases,
    axis_rows.cases,
    dask_rows.cases,
    array_rows.cases,
    sort_scan_rows.cases,
    matmul_rows.cases,
    dtype_rows.cases,
    peers_table_rows.transfer_cases,
)


def build_cases(b, libs):
    return [case for rows in ROWS for case in rows(b, libs)]


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, fewer sweep points")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"),
                    help="directory for the .md, .png and latest.json")
    ap.add_argument("--filter", default=None, help="only cases whose name matches this regex")
    ap.add_argument("--no-sweep", action="store_true", help="skip the sweeps behind the plot")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    settings = Settings(args.quick)
    t_start = time.perf_counter()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    libs = load_libs()
    for c in COLUMNS:
        log("%-9s %s" % (c, ("%s%s" % (libs[c].version, "" if libs[c].gpu or c == "NumPy"
                                       else " (no GPU: %s)" % libs[c].why))
                         if libs[c].ok else "absent (%s)" % libs[c].why))
    env = environment(libs)
    l2 = env.get("l2_cache_bytes") or 60 * 2**20
    n_max = max(N_1E8, CEILING_ELEMS, max(settings.sweep_dev), max(settings.sweep_host))
    t0 = time.perf_counter()
    data = Data(libs, n_max, l2)
    log("random inputs: 2 x %d float64 in %.1fs" % (n_max, time.perf_counter() - t0))

    builders = Builders(libs, data, settings)
    cases = build_cases(builders, libs)
    if args.filter:
        cases = [c for c in cases if c.group == "ceiling" or re.search(args.filter, c.name)]
    # the C floor in the same run, before the rows held to it, and in this process
    # beside their repeats (c_floor.InProcess)
    C_FLOOR.clear()
    C_FLOOR.update(c_floor.measure(os.environ.get("CUDA_PATH", "/usr/local/cuda"),
                                   os.path.join(ROOT, "build", "bench"), libs["myModule"].gpu))
    log("C floor (launch + sync): %s" % (fmt_time(C_FLOOR["median_s"]) if C_FLOOR.get("status") == "ok"
                                         else "%s: %s" % (C_FLOOR.get("status"), C_FLOOR.get("why"))))
    floor = c_floor.in_process(C_FLOOR)
    if C_FLOOR.get("status") == "ok" and floor is None:
        log("C floor: no shared library of the probe; the floor rows divide by the figures above")
    runner = Runner(libs, data, settings, floor)
    case_results = runner.run_cases(cases, log)
    ceiling, ceiling_source = ceiling_from(case_results)
    first_call = first_call_rows.first_call_check(libs)
    first_call_ops = None
    if not args.filter or re.search(args.filter, first_call_rows.FIRST_CALL_OPS):
        first_call_ops = first_call_rows.first_call_ops_check(libs)

    sweeps = {}
    if not args.no_sweep:
        sweeps["dev"] = runner.sweep(builders, "dev", settings.sweep_dev,
                                     [("myModule", None), ("CuPy", None), ("PyTorch", None)], log)
        sweeps["host"] = runner.sweep(builders, "host", settings.sweep_host,
                                      [("NumPy", None), ("myModule", "cuda"), ("myModule", "auto"),
                                       ("CuPy", None), ("PyTorch", None)], log)
    del data, runner
    release_gpu_memory(libs)

    rows = table_rows(case_results, ceiling) + [first_call_rows.first_call_row(first_call)]
    if first_call_ops is not None:
        rows.append(first_call_rows.first_load_row(first_call_ops))
        rows.append(first_call_rows.first_call_ops_row(first_call_ops))
    rows.extend(c_floor.rows(dict(C_FLOOR)))
    elapsed = time.perf_counter() - t_start
    print_table(rows, ceiling, ceiling_source, elapsed)
    write_results(args.out, env, settings, elapsed, ceiling, ceiling_source,
                  {"first_call": first_call, "first_call_ops": first_call_ops,
                   "c_floor": dict(C_FLOOR)},
                  case_results, rows, sweeps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
