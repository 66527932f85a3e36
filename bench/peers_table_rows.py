"""The rows of bench/TARGETS.md's peers table, each with its targets: the streaming
ceiling (D2D copies), add/subtract/multiply/divide on device arrays (n = 1e8, 2^26,
1e6, 1), add with NumPy in/out, sums, trace, and the transfers (informational)."""
from harness.cases import Case, n_label
from harness.inputs import CEILING_ELEMS, ITEM, N_1E8, N_2_26, TRANSFER_BYTES
from harness import targets
from op_rows import CLASSIC_BINOPS


def ceiling_cases(b, _libs):
    """The best of these D2D copies is the streaming ceiling of the run."""
    out = []
    ceiling_bytes = 2 * CEILING_ELEMS * ITEM
    out.append(Case("streaming ceiling: D2D copy 1 GiB, cudaMemcpyAsync / torch copy_", "ceiling",
                    ceiling_bytes, {"CuPy": b.d2d_copy("CuPy", "memcpy"),
                                    "PyTorch": b.d2d_copy("PyTorch", "copy_")},
                    note="bytes read + written"))
    out.append(Case("streaming ceiling: D2D copy 1 GiB, copy kernel (dst[...] = src)", "ceiling",
                    ceiling_bytes, {"CuPy": b.d2d_copy("CuPy", "kernel")},
                    note="bytes read + written"))
    return out


def cases(b, _libs):
    """The peers table's rows on device arrays and NumPy arrays, add to trace."""
    out = []
    gpu_cols = ("myModule", "CuPy", "PyTorch")
    for n in (N_1E8, N_2_26):
        ops = ("add",) if n == N_1E8 else CLASSIC_BINOPS
        for op in ops:
            nbytes = 3 * n * ITEM
            out.append(Case(
                "%s, device arrays, n = %s" % (op, n_label(n)), "dev-%d" % n, nbytes,
                {c: b.dev_binop(c, op, n) for c in gpu_cols},
                targets.of("elementwise-large", nbytes)))
    for op in CLASSIC_BINOPS:
        n = 10**6
        out.append(Case("%s, device arrays, n = 1e6" % op, "dev-1e6", 3 * n * ITEM,
                        {c: b.dev_binop(c, op, n) for c in gpu_cols},
                        targets.of("elementwise-1e6")))
    # bench/TARGETS.md's peer figures for n = 1e6 (CuPy 18 us) and sum n = 1e8 (199 us) are
    # per-call synchronised times; the same cases timed that way, beside the loops above.
    n = 10**6
    out.append(Case("add, device arrays, n = 1e6, call + sync", "dev-1e6", 3 * n * ITEM,
                    {c: b.dev_binop(c, "add", n, sync_each=True) for c in gpu_cols},
                    targets.of("elementwise-1e6")))
    for op in CLASSIC_BINOPS:
        out.append(Case("%s, device arrays, n = 1, call + sync" % op, "dev-1", None,
                        {c: b.dev_binop(c, op, 1, sync_each=True) for c in gpu_cols},
                        targets.of("elementwise-n1")))

    for n in (N_1E8, 10**7):
        out.append(Case(
            "add, NumPy in/out, n = %s, device='cuda'" % n_label(n), "host-%d" % n, 3 * n * ITEM,
            {"myModule": b.host_add("myModule", n, "cuda"), "NumPy": b.host_add("NumPy", n),
             "CuPy": b.host_add("CuPy", n), "PyTorch": b.host_add("PyTorch", n)},
            targets.of("host-add-large")))
    n = 1000
    trip = {"NumPy": b.host_add("NumPy", n), "CuPy": b.host_add("CuPy", n),
            "PyTorch": b.host_add("PyTorch", n)}
    out.append(Case("add, NumPy in/out, n = 1000, device='auto'", "host-1000", 3 * n * ITEM,
                    dict(trip, myModule=b.host_add("myModule", n, "auto")),
                    targets.of("host-add-1000-auto")))
    out.append(Case("add, NumPy in/out, n = 1000, device='cuda'", "host-1000", 3 * n * ITEM,
                    dict(trip, myModule=b.host_add("myModule", n, "cuda")),
                    targets.of("host-add-1000-cuda")))

    n = N_1E8
    out.append(Case("sum, device array, n = 1e8", "dev-sum", n * ITEM,
                    {c: b.dev_sum(c, n, False) for c in gpu_cols},
                    targets.of("sum-device")))
    out.append(Case("sum, device array, n = 1e8, call + sync", "dev-sum", n * ITEM,
                    {c: b.dev_sum(c, n, False, sync_each=True) for c in gpu_cols},
                    targets.of("sum-device")))
    out.append(Case("sum, device array -> Python float, n = 1000", "dev-sum", None,
                    {c: b.dev_sum(c, 1000, True) for c in gpu_cols},
                    targets.of("sum-to-float")))
    host_sum_peers = {"NumPy": b.host_sum("NumPy", n), "CuPy": b.host_sum("CuPy", n),
                      "PyTorch": b.host_sum("PyTorch", n)}
    out.append(Case("sum, NumPy in, n = 1e8, device default ('auto')", "host-sum", n * ITEM,
                    dict(host_sum_peers, myModule=b.host_sum("myModule", n)),
                    targets.of("host-sum")))
    out.append(Case("sum, NumPy in, n = 1e8, device='cuda'", "host-sum", n * ITEM,
                    dict(host_sum_peers, myModule=b.host_sum("myModule", n, "cuda")),
                    targets.of("host-sum")))

    side = 4096
    out.append(Case("trace, device 4096x4096 -> Python float", "trace", None,
                    {c: b.dev_trace(c, side) for c in gpu_cols},
                    targets.of("trace-device")))
    out.append(Case("trace, NumPy 4096x4096", "trace", None,
                    {c: b.host_trace(c, side) for c in ("myModule", "NumPy")},
                    targets.of("trace-host")))
    return out


def transfer_cases(b, _libs):
    """Transfers of 256 MiB each way, pageable and pinned (no targets)."""
    out = []
    for what, title in (("h2d-pageable", "H2D pageable"), ("d2h-pageable", "D2H pageable"),
                        ("h2d-pinned", "H2D pinned"), ("d2h-pinned", "D2H pinned"),
                        ("register", "cudaHostRegister + Unregister")):
        entries = {c: b.transfer(c, what) for c in ("CuPy", "PyTorch")}
        if what == "register":
            del entries["PyTorch"]
        if what.endswith("pageable"):
            entries["myModule"] = b.transfer("myModule", what)
        out.append(Case("transfer 256 MiB, %s (informational)" % title, "transfers",
                        TRANSFER_BYTES, entries,
                        note="one-way bytes" if what != "register" else ""))
    return out
