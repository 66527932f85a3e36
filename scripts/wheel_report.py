"""Check and describe the wheel `make wheel` made for this Python: its size, its
tag, the shared libraries its extension needs (only system ones: no libcudart,
no NVRTC, no run path), and the GPU code it holds (scripts/fatbin_archs.py).

    python scripts/wheel_report.py [--dist dist] [--expect "75 80 ... 120"] [--max-mb 25]

Exits 1 when a check fails.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fatbin_archs  # noqa: E402

FORBIDDEN = ("libcudart", "libnvrtc", "libcuda.so", "libpython")
# Issue 26: the wheel stays under 25 MB (a release one, every architecture).
MAX_MB = 25.0


def this_pythons_wheel(dist):
    # setuptools 75.8 and later name it mymodule-... (normalised, PEP 491).
    tag = "cp%d%d" % sys.version_info[:2]
    found = sorted(glob.glob(os.path.join(dist, "[mM]y[mM]odule-*-%s-%s-*.whl" % (tag, tag))),
                   key=os.path.getmtime)
    if not found:
        raise SystemExit("error: no %s wheel in %s (make wheel)" % (tag, dist))
    return found[-1]


def dynamic_section(path):
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    needed = [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]
    paths = [line.strip() for line in out.splitlines() if "(RPATH)" in line or "(RUNPATH)" in line]
    return needed, paths


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", default="dist")
    parser.add_argument("--expect", help="architectures that must have machine code")
    parser.add_argument("--max-mb", type=float, default=MAX_MB, help="the largest wheel allowed, in MB")
    args = parser.parse_args(argv)
    wheel = this_pythons_wheel(args.dist)
    ok = True
    size_mb = os.path.getsize(wheel) / 1e6
    print("%s: %.1f MB" % (wheel, size_mb))
    if size_mb > args.max_mb:
        print("error: %.1f MB, more than %.0f MB" % (size_mb, args.max_mb), file=sys.stderr)
        ok = False
    if "manylinux" not in os.path.basename(wheel):
        print("error: not tagged manylinux (auditwheel repair did not run?)", file=sys.stderr)
        ok = False
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        for required in ("myModule/py.typed", "myModule/_core.pyi"):
            if required not in names:
                print("error: %s missing from the wheel" % required, file=sys.stderr)
                ok = False
        if not any(n.endswith(".dist-info/LICENSE") or "/licenses/" in n for n in names):
            print("error: no LICENSE in the wheel's metadata", file=sys.stderr)
            ok = False
        [core] = [n for n in names if n.startswith("myModule/_core") and n.endswith(".so")]
        path = zf.extract(core, tmp)
        needed, run_paths = dynamic_section(path)
        print("NEEDED: " + " ".join(needed))
        bad = [lib for lib in needed if lib.startswith(FORBIDDEN)]
        if bad or run_paths:
            print("error: depends on %s" % (" ".join(bad + run_paths)), file=sys.stderr)
            ok = False
        rc = fatbin_archs.main([path] + (["--expect", args.expect] if args.expect else []))
        ok = ok and rc == 0
    print("wheel checks %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
