#!/usr/bin/env bash
# A user's own package with its own CUDA operation (examples/softplus_project):
# its wheel is built against this myModule (the in-place build, as a user's
# would be against the installed one), installed into the wheel's virtual
# environment beside myModule's wheel (make test-wheel made it), and its tests
# run there, from outside both trees: the operation library loads with nothing
# but the driver.
#
#   scripts/test_example.sh PYTHON VENV      (CUDA_ARCH: the architectures to build)
set -euo pipefail
PYTHON=$1
VENV=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIST=$ROOT/build/example-dist
[ -x "$VENV/bin/python" ] || { echo "error: no $VENV (make test-wheel first)" >&2; exit 1; }
rm -rf "$DIST" "$ROOT/examples/softplus_project/build" "$ROOT"/examples/softplus_project/*.egg-info
PYTHONPATH=$ROOT "$PYTHON" -m pip wheel -q --no-build-isolation --no-deps -w "$DIST" \
    "$ROOT/examples/softplus_project"
rm -rf "$ROOT/examples/softplus_project/build" "$ROOT"/examples/softplus_project/*.egg-info
WHEEL=$(ls "$DIST"/softplus_ops-*.whl)
case "$WHEEL" in *-none-any.whl) echo "error: $WHEEL is tagged pure Python" >&2; exit 1;; esac
# Asked of the archive's own name list (a listing piped into `grep -q` dies of a
# broken pipe when grep stops at the first match, which pipefail reports).
"$PYTHON" -c 'import sys, zipfile; sys.exit("softplus_ops/_ops.so" not in zipfile.ZipFile(sys.argv[1]).namelist())' "$WHEEL" \
    || { echo "error: no _ops.so in $WHEEL" >&2; exit 1; }
"$VENV/bin/python" -m pip install -q --no-index --no-deps --force-reinstall "$WHEEL"
cd "$VENV"
env -i HOME="$HOME" PATH="$VENV/bin" LANG=C.UTF-8 ${MYMODULE_REQUIRE_GPU:+MYMODULE_REQUIRE_GPU=$MYMODULE_REQUIRE_GPU} \
    ${CUDA_VISIBLE_DEVICES+CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES} \
    bin/python -m pytest -q -p no:cacheprovider "$ROOT/examples/softplus_project/tests"
