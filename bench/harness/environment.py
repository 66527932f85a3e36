"""The machine and software a run measured on: GPU name and properties, CUDA driver
and runtimes, library versions, CPU, and the git revision of this tree."""
import datetime
import os
import platform
import subprocess
import sys

from .contenders import COLUMNS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cuda_version(v):
    return "%d.%d" % (v // 1000, (v % 1000) // 10) if v else "none"


def environment(libs):
    env = {"date": datetime.date.today().isoformat(),
           "time": datetime.datetime.now().isoformat(timespec="seconds"),
           "python": sys.version.split()[0], "platform": platform.platform(),
           "cpu_count": os.cpu_count(),
           "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
           "cpu_model": None, "versions": {c: libs[c].version for c in COLUMNS},
           "available": {c: {"import": libs[c].ok, "gpu": libs[c].gpu, "why": libs[c].why}
                         for c in COLUMNS},
           "gpu": None, "l2_cache_bytes": None}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    env["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mm, cp, torch = libs["myModule"], libs["CuPy"], libs["PyTorch"]
    if mm.ok:
        try:
            ri = mm.mod._runtime_info()
            env["mymodule_runtime"] = {k: ri[k] for k in ri}
            env["cuda_driver_api"] = _cuda_version(ri.get("driver_version", 0))
            env["cuda_runtime_mymodule"] = _cuda_version(ri.get("runtime_version", 0))
        except Exception:  # noqa: BLE001
            pass
    if mm.gpu:
        info = mm.mod.device_info(0)
        env["gpu"] = info["name"]
        env["gpu_info"] = info
        env["l2_cache_bytes"] = info.get("l2_cache_bytes")
    elif torch.gpu:
        env["gpu"] = torch.mod.cuda.get_device_name(0)
    elif cp.gpu:
        name = cp.mod.cuda.runtime.getDeviceProperties(0)["name"]
        env["gpu"] = name.decode() if isinstance(name, bytes) else name
    if cp.gpu:
        try:
            env["cuda_runtime_cupy"] = _cuda_version(cp.mod.cuda.runtime.runtimeGetVersion())
            env["cuda_driver_api"] = _cuda_version(cp.mod.cuda.runtime.driverGetVersion())
            if env["l2_cache_bytes"] is None:
                env["l2_cache_bytes"] = cp.mod.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
        except Exception:  # noqa: BLE001
            pass
    if torch.gpu:
        env["cuda_runtime_torch"] = torch.mod.version.cuda
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        if smi.returncode == 0:
            env["nvidia_smi"] = smi.stdout.strip()
            env["driver"] = smi.stdout.strip().splitlines()[0].split(",")[1].strip()
    except Exception:  # noqa: BLE001
        pass
    try:
        env["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                    capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        env["git_dirty"] = bool(dirty)
    except Exception:  # noqa: BLE001
        pass
    return env
