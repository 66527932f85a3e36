#!/usr/bin/env python3
"""Run data-apis/array-api-tests on myModule.array_api and summarise it per group.

    python3 scripts/array_api_tests.py SUMMARY.md [--max-examples N] [--suite DIR]
                                        [--json FILE] [--groups a,b] [-- PYTEST ARGS]

The suite is copied to a temporary folder (it writes caches beside itself). Its
dependencies that a machine lacks (ndindex, pytest-json-report, a hypothesis new
enough for the suite) are installed offline from the wheels in .whl/array-api/
(`pip download` them there on a machine with network) into a folder put first on
PYTHONPATH; nothing is installed into the interpreter itself. Exit status: 0 when
no test failed (xfails and skips allowed), 1 otherwise.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEELS = os.path.join(ROOT, ".whl", "array-api")
XFAILS = os.path.join(ROOT, "tests", "array_api_xfails.txt")
# The suite's dtypes left out: none by default (every dtype of the standard is the
# library's since session 18); --skip-dtypes narrows a run.
SKIP_DTYPES = ""
MIN_HYPOTHESIS = (6, 151, 0)  # the suite's requirements.txt

GROUPS = collections.OrderedDict([
    ("creation", "test_creation_functions.py"),
    ("elementwise/operators", "test_operators_and_elementwise_functions.py"),
    ("statistical", "test_statistical_functions.py"),
    ("searching", "test_searching_functions.py"),
    ("manipulation", "test_manipulation_functions.py"),
    ("data types", "test_data_type_functions.py"),
    ("has_names", "test_has_names.py"),
    ("array object", "test_array_object.py"),
    ("inspection", "test_inspection_functions.py"),
    ("constants", "test_constants.py"),
    ("utility", "test_utility_functions.py"),
])


def find_suite(given):
    for path in (given, os.environ.get("ARRAY_API_TESTS_DIR"),
                 os.path.join(ROOT, "shared", "external", "array-api-tests"),
                 os.path.join(ROOT, "..", "shared", "external", "array-api-tests")):
        if path and os.path.isfile(os.path.join(path, "array_api_tests", "__init__.py")):
            return os.path.abspath(path)
    sys.exit("array-api-tests not found: give --suite DIR (with its array-api submodule)")


def copy_suite(suite, copy):
    """A writable copy of the suite, unchanged (it writes caches beside itself). Since the
    library has complex dtypes, the suite imports as it is: no line of it is patched
    (sessions 13-17 changed one, its max() over an empty list of complex dtypes)."""
    shutil.copytree(suite, copy, ignore=shutil.ignore_patterns(".git", "__pycache__", ".hypothesis"))
    for folder, dirs, files in os.walk(copy):
        for name in dirs + files:
            path = os.path.join(folder, name)
            os.chmod(path, os.stat(path).st_mode | 0o200)


def version_tuple(text):
    return tuple(int(p) for p in text.split(".")[:3] if p.isdigit())


def missing_requirements(python):
    """The packages to bring from the wheels: absent ones, and hypothesis if older."""
    probe = (
        "import importlib.metadata as m\n"
        "for n in ('ndindex', 'pytest-json-report', 'hypothesis'):\n"
        "    try: print(n, m.version(n))\n"
        "    except m.PackageNotFoundError: print(n, 'none')\n"
    )
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout
    need = []
    for line in out.splitlines():
        name, version = line.split()
        if version == "none" or (name == "hypothesis" and version_tuple(version) < MIN_HYPOTHESIS):
            need.append(name)
    return need


def install(python, packages, target):
    if not packages:
        return
    if not os.path.isdir(WHEELS):
        sys.exit("missing %s and no wheels in %s" % (", ".join(packages), WHEELS))
    # pytest-json-report needs pytest-metadata; hypothesis needs sortedcontainers,
    # which the machines have. --no-deps keeps pip from reaching for an index.
    if "pytest-json-report" in packages:
        packages = packages + ["pytest-metadata"]
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                    "--find-links", WHEELS, "--target", target] + packages, check=True)


def shard_targets(base, copy, env, path, jobs):
    """The pytest targets of one group's run, or of `jobs` runs: its test functions
    (collected once) dealt round-robin, each run naming its own."""
    if jobs <= 1:
        return [[path]]
    out = subprocess.run(base + ["--collect-only", "-q", path], cwd=copy, env=env,
                         capture_output=True, text=True).stdout
    functions = []
    for line in out.splitlines():
        if line.startswith(path + "::"):
            name = line.split("[", 1)[0]
            if name not in functions:
                functions.append(name)
    if len(functions) < 2:
        return [[path]]
    shards = [functions[k::jobs] for k in range(min(jobs, len(functions)))]
    return [shard for shard in shards if shard]


def summarise(report_path, groups):
    with open(report_path) as f:
        report = json.load(f)
    counts = collections.OrderedDict((g, collections.Counter()) for g in groups)
    failed = []
    for test in report.get("tests", []):
        path = test["nodeid"].split("::")[0]
        group = next((g for g, file in GROUPS.items() if path.endswith(file)), None)
        if group not in counts:
            continue
        outcome = test["outcome"]  # passed, failed, skipped, xfailed, xpassed, error
        counts[group][outcome] += 1
        if outcome in ("failed", "error"):
            failed.append(test["nodeid"])
    return counts, failed, report.get("tests", [])


def write_summary(path, counts, failed, args, versions, notes):
    columns = ("passed", "xfailed", "xpassed", "skipped", "failed", "error")
    lines = ["# array-api-tests on myModule.array_api", "",
             "max-examples %d, seed %s; %s" % (args.max_examples, args.seed, versions), "",
             "| group | " + " | ".join(columns) + " | note |",
             "| --- |" + " ---: |" * len(columns) + " --- |"]
    total = collections.Counter()
    for group, c in counts.items():
        total.update(c)
        lines.append("| %s | " % group + " | ".join(str(c[k]) for k in columns) + " | %s |" % notes.get(group, ""))
    lines.append("| all | " + " | ".join(str(total[k]) for k in columns) + " | |")
    if failed:
        lines += ["", "Failed (not in tests/array_api_xfails.txt):", ""]
        lines += ["- `%s`" % nodeid for nodeid in failed]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary", help="where to write the per-group table (markdown)")
    parser.add_argument("--max-examples", type=int, default=20)
    parser.add_argument("--seed", default="0", help="hypothesis seed, for runs that compare")
    parser.add_argument("--suite", help="the array-api-tests checkout")
    parser.add_argument("--json", help="where to keep the pytest-json-report file")
    parser.add_argument("--groups", default=",".join(GROUPS), help="comma-separated, of: %s" % ", ".join(GROUPS))
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--skip-dtypes", default=SKIP_DTYPES,
                        help="comma-separated dtypes the suite does not draw (default: %(default)s)")
    parser.add_argument("--group-timeout", type=float, default=0,
                        help="seconds each group may run (0: no limit); a group stopped is noted in its row")
    parser.add_argument("--jobs", type=int, default=1,
                        help="pytest processes at once; a group's test functions are split among "
                             "as many shards (the GPU is shared, the CPU work is hypothesis')")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        parser.error("unknown groups: %s" % ", ".join(unknown))

    suite = find_suite(args.suite)
    work = tempfile.mkdtemp(prefix="array-api-tests-")
    try:
        copy = os.path.join(work, "array-api-tests")
        copy_suite(suite, copy)
        # A copy beside the suite: pytest loads the conftest.py of the folder of any
        # existing path on its command line, and tests/conftest.py is not the suite's.
        xfails = os.path.join(work, "xfails.txt")
        shutil.copyfile(XFAILS, xfails)
        site = os.path.join(work, "site")
        install(args.python, missing_requirements(args.python), site)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (site, ROOT, env.get("PYTHONPATH")) if p)
        env["ARRAY_API_TESTS_MODULE"] = "myModule.array_api"
        if args.skip_dtypes:
            env["ARRAY_API_TESTS_SKIP_DTYPES"] = args.skip_dtypes
        env["ARRAY_API_TESTS_VERSION"] = "2024.12"
        # pytest reports a conftest that fails to import as unknown options: say why first.
        probe = subprocess.run([args.python, "-c", "import conftest"], cwd=copy, env=env,
                               capture_output=True, text=True)
        if probe.returncode != 0:
            sys.exit("the suite's conftest.py does not import:\n" + probe.stderr)
        versions = subprocess.run(
            [args.python, "-c", "import hypothesis, numpy, myModule, sys; print('Python %d.%d, hypothesis %s, "
             "NumPy %s, myModule %s' % (sys.version_info[:2] + (hypothesis.__version__, numpy.__version__, "
             "myModule.__version__)))"], env=env, capture_output=True, text=True).stdout.strip()
        # One pytest a group (or a shard of one: --jobs), each with its own time limit,
        # the summary rewritten after each: a slow group (hypothesis shrinking a failure
        # takes long) costs only its own row, and what ran is kept if the caller's own
        # limit strikes.
        counts = collections.OrderedDict((g, collections.Counter()) for g in groups)
        failed, tests, notes = [], [], {}
        base = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
                "-c", os.path.join(copy, "pytest.ini"), "--rootdir", copy,
                "--max-examples", str(args.max_examples), "--hypothesis-seed", args.seed,
                "--disable-deadline", "--xfails-file", xfails]
        work_items = []
        for group in groups:
            targets = shard_targets(base, copy, env, "array_api_tests/" + GROUPS[group], args.jobs)
            for k, shard in enumerate(targets):
                report = os.path.join(work, "report-%s-%d.json" % (group.replace("/", "-").replace(" ", "-"), k))
                work_items.append((group, report, base + ["--json-report", "--json-report-file", report]
                                   + shard + args.pytest_args))
        running = []
        results = collections.defaultdict(list)

        def finish(item, proc, started):
            group, report, _ = item
            if proc.poll() is None:
                proc.kill()
                proc.wait()
                notes[group] = "stopped after %g s" % args.group_timeout
            if os.path.exists(report):
                results[group].append(report)
            elif group not in notes:
                notes[group] = "pytest wrote no report (exit %s)" % proc.returncode

        pending = list(work_items)
        while pending or running:
            while pending and len(running) < max(1, args.jobs):
                item = pending.pop(0)
                print("+", " ".join(item[2][:3] + ["..."] + item[2][-3:]), flush=True)
                running.append((item, subprocess.Popen(item[2], cwd=copy, env=env), time.monotonic()))
            time.sleep(0.5)
            still = []
            for item, proc, started in running:
                overdue = args.group_timeout and time.monotonic() - started > args.group_timeout
                if proc.poll() is not None or overdue:
                    finish(item, proc, started)
                else:
                    still.append((item, proc, started))
            running = still
        for group in groups:
            for report in results[group]:
                group_counts, group_failed, group_tests = summarise(report, [group])
                counts[group].update(group_counts[group])
                failed += group_failed
                tests += group_tests
        write_summary(args.summary, counts, failed, args, versions, notes)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"tests": tests}, f)
        print(open(args.summary).read())
        return 1 if failed or notes else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
