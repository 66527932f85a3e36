#!/usr/bin/env bash
# Dask, distributed and dask-cuda for a machine with no network (the GPU machines),
# from wheels fetched beforehand into .whl/dask/ (git-ignored; carried along):
#
#   scripts/install_gpu_wheels.sh [PYTHON] [TARGET]     (default: python3, build/gpu-site)
#   PYTHONPATH=build/gpu-site python3 -m pytest -q tests/test_dask.py tests/test_dask_gpu.py
#
# The wheels go into TARGET (pip --target), not into PYTHON's environment, and a
# wheel whose distribution PYTHON already has is left out (its numpy, CuPy, Numba,
# jinja2... stay the ones it was built with), except the four this is for. Each
# wheel is installed with --no-deps: the set is resolved already. How the folder is
# filled (on a machine with the network, for CPython 3.12 on x86-64 Linux):
#
#   pip download -d .whl/dask --only-binary=:all: --python-version 3.12 \
#       --implementation cp --abi cp312 --platform manylinux_2_28_x86_64 \
#       --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#       --platform any dask-cuda==26.10.0 "cuda-bindings==13.*"
#   cd .whl/dask && rm numpy-* bokeh-* pillow-* contourpy-* narwhals-* xyzservices-*
#
# numpy is the machine's own; Bokeh and what only it needs (15 MB) serve nothing
# but distributed's dashboard, which starts without them (it logs that it is off).
# cuda-bindings (without the CUDA toolkit wheels of its [all] extra) is what
# cuda-core imports: dask-cuda reads the GPUs through it. 30 wheels, 32 MB.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${1:-python3}
TARGET=${2:-$ROOT/build/gpu-site}
WHEELS=$ROOT/.whl/dask
ALWAYS="dask distributed dask_cuda rapids_dask_dependency"

ls "$WHEELS"/*.whl > /dev/null 2>&1 || { echo "error: no wheels in $WHEELS" >&2; exit 1; }
mkdir -p "$TARGET"
selected=()
for wheel in "$WHEELS"/*.whl; do
    dist=$(basename "$wheel" | cut -d- -f1)
    case " $ALWAYS " in
        *" $dist "*) selected+=("$wheel"); continue ;;
    esac
    if have=$(PYTHONPATH= "$PYTHON" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' \
              "$dist" 2>/dev/null); then
        echo "kept $PYTHON's $dist $have"
    else
        selected+=("$wheel")
    fi
done
echo "installing ${#selected[@]} wheels into $TARGET"
"$PYTHON" -m pip install -q --no-index --no-deps --upgrade --target "$TARGET" "${selected[@]}"
# What the tests need imports from there, beside PYTHON's own numpy (not replaced).
PYTHONPATH=$TARGET "$PYTHON" - <<'EOF'
import importlib.metadata as m
import numpy, dask, distributed, dask.array
print("numpy", numpy.__version__, "from", numpy.__file__)
print("dask", dask.__version__, "distributed", distributed.__version__)
try:
    import dask_cuda
    print("dask-cuda", m.version("dask-cuda"))
except Exception as exc:  # pynvml or cuda-core may miss a driver; the tests then say why
    print("dask_cuda does not import:", repr(exc))
EOF
echo "use: PYTHONPATH=$TARGET"
