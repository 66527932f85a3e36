#!/usr/bin/env bash
# The wheel as a user gets it: a fresh virtual environment, `pip install
# --no-index`, no compiler or CUDA toolkit on PATH, then the test suite against
# the installed package (MYMODULE_TEST_INSTALLED=1), run from outside the tree.
#
#   scripts/test_wheel.sh PYTHON VENV [pytest arguments...]
#
# The test dependencies (numpy, pytest, hypothesis) come from a wheelhouse that
# `pip download` fills; offline (the GPU machines) the environment sees PYTHON's
# own packages instead (--system-site-packages), and only myModule is installed
# into it, from the wheel.
set -euo pipefail
PYTHON=$1
VENV=$2
shift 2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TAG=$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
WHEEL=$(ls -t "$ROOT"/dist/[mM]y[mM]odule-*-"$TAG"-"$TAG"-*.whl 2>/dev/null | head -1)
[ -n "$WHEEL" ] || { echo "error: no $TAG wheel in dist/ (make wheel PYTHON=$PYTHON)" >&2; exit 1; }
WHEELHOUSE=$ROOT/build/wheelhouse
DEPS="numpy pytest hypothesis"

rm -rf "$VENV"
if "$PYTHON" -m pip download -q -d "$WHEELHOUSE" $DEPS 2>/dev/null; then
    "$PYTHON" -m venv "$VENV"
    INSTALL=(--find-links "$WHEELHOUSE" "$WHEEL" $DEPS)
else
    echo "offline: the environment uses $PYTHON's numpy and pytest (--system-site-packages)"
    "$PYTHON" -m venv --system-site-packages "$VENV"
    # PYTHON may itself be a virtual environment (the GPU machines' python3 is):
    # --system-site-packages reaches only its base, so name its own packages too.
    OUTER=$("$PYTHON" -c 'import sysconfig; p = sysconfig.get_paths(); print(p["purelib"]); print(p["platlib"])')
    INNER=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    printf '%s\n' $OUTER > "$INNER/_outer_site.pth"
    INSTALL=(--no-deps "$WHEEL")
fi
VENV=$(cd "$VENV" && pwd)
# Nothing of the build environment but what finds the driver and the GPUs
# (LD_LIBRARY_PATH where the driver lives off the linker's path, as in some
# containers) and myModule's own switches.
CLEAN_ENV=(env -i HOME="$HOME" PATH="$VENV/bin" LANG=C.UTF-8)
while IFS= read -r var; do
    CLEAN_ENV+=("$var=${!var}")
done < <(compgen -e | grep -E '^(LD_LIBRARY_PATH|CUDA_VISIBLE_DEVICES|NVIDIA_.*|MYMODULE_.*)$' || true)

echo "installing $(basename "$WHEEL") into $VENV (pip install --no-index, nothing else on PATH)"
"${CLEAN_ENV[@]}" "$VENV/bin/python" -m pip install -q --no-index "${INSTALL[@]}"
cd "$VENV"
"${CLEAN_ENV[@]}" MYMODULE_TEST_INSTALLED=1 bin/python -c \
    'import myModule; print("testing", myModule.__file__); myModule.show_config()'
exec "${CLEAN_ENV[@]}" MYMODULE_TEST_INSTALLED=1 bin/python -m pytest -p no:cacheprovider "$@" "$ROOT/tests"
