set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
make lib CUDA_ARCH=90 >/dev/null 2>&1 && python3 setup.py -q build_ext --inplace >/dev/null 2>&1 || echo BUILD FAILED
nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/latency.cu -IvectorAdd build/libvectoradd.a -o /tmp/latency && /tmp/latency 2>&1 | tee $OUT/latency.txt
python3 bench/probes/overhead.py 2>&1 | tee $OUT/overhead.txt
