"""The rows of bench/TARGETS.md's peers table, each with its targets: the streaming
ceiling (D2D copies), add/subtract/multiply/divide on device arrays (n = 1e8, 2^26,
1e6, 1), add with NumPy in/out, sums, trace, and the transfers (informational)."""
from harness.cases import Case, n_label
from harness.inputs import CEILING_ELEMS, ITEM, N_1E8, N_2_26, TRANSFER_BYTES
from harness.targets import ceiling_fraction, floor_ratio, time_ratio
from op_rows import CLASSIC_BINOPS

# An n = 1 call + synchronize against the C floor (empty kernel + cudaStreamSynchronize).
N1_FLOOR_RATIO = 1.2
SCALAR_FLOOR_RATIO = 1.2


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
                [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput"),
                 ceiling_fraction("myModule", nbytes, 0.90, ">= 90% of streaming ceiling")]))
    for op in CLASSIC_BINOPS:
        n = 10**6
        out.append(Case("%s, device arrays, n = 1e6" % op, "dev-1e6", 3 * n * ITEM,
                        {c: b.dev_binop(c, op, n) for c in gpu_cols},
                        [time_ratio("myModule", "CuPy", "<=", 0.8, "<= 0.8x CuPy's time")]))
    # bench/TARGETS.md's peer figures for n = 1e6 (CuPy 18 us) and sum n = 1e8 (199 us) are
    # per-call synchronised times; the same cases timed that way, beside the loops above.
    n = 10**6
    out.append(Case("add, device arrays, n = 1e6, call + sync", "dev-1e6", 3 * n * ITEM,
                    {c: b.dev_binop(c, "add", n, sync_each=True) for c in gpu_cols},
                    [time_ratio("myModule", "CuPy", "<=", 0.8, "<= 0.8x CuPy's time")]))
    for op in CLASSIC_BINOPS:
        out.append(Case("%s, device arrays, n = 1, call + sync" % op, "dev-1", None,
                        {c: b.dev_binop(c, op, 1, sync_each=True) for c in gpu_cols},
                        [floor_ratio("myModule", N1_FLOOR_RATIO,
                                     "<= %gx the C launch + sync floor of this run" % N1_FLOOR_RATIO),
                         time_ratio("myModule", "CuPy", "<=", 0.5, "<= 0.5x CuPy's time")]))

    for n in (N_1E8, 10**7):
        out.append(Case(
            "add, NumPy in/out, n = %s, device='cuda'" % n_label(n), "host-%d" % n, 3 * n * ITEM,
            {"myModule": b.host_add("myModule", n, "cuda"), "NumPy": b.host_add("NumPy", n),
             "CuPy": b.host_add("CuPy", n), "PyTorch": b.host_add("PyTorch", n)},
            [time_ratio("NumPy", "myModule", ">=", 4.0, ">= 4x NumPy throughput"),
             time_ratio("CuPy", "myModule", ">=", 6.0, ">= 6x CuPy round trip")]))
    n = 1000
    trip = {"NumPy": b.host_add("NumPy", n), "CuPy": b.host_add("CuPy", n),
            "PyTorch": b.host_add("PyTorch", n)}
    out.append(Case("add, NumPy in/out, n = 1000, device='auto'", "host-1000", 3 * n * ITEM,
                    dict(trip, myModule=b.host_add("myModule", n, "auto")),
                    [time_ratio("myModule", "NumPy", "<=", 1.5, "<= 1.5x NumPy's time")]))
    out.append(Case("add, NumPy in/out, n = 1000, device='cuda'", "host-1000", 3 * n * ITEM,
                    dict(trip, myModule=b.host_add("myModule", n, "cuda")),
                    [time_ratio("myModule", "CuPy", "<=", 0.25, "<= 0.25x CuPy round trip")]))

    n = N_1E8
    out.append(Case("sum, device array, n = 1e8", "dev-sum", n * ITEM,
                    {c: b.dev_sum(c, n, False) for c in gpu_cols},
                    [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput")]))
    out.append(Case("sum, device array, n = 1e8, call + sync", "dev-sum", n * ITEM,
                    {c: b.dev_sum(c, n, False, sync_each=True) for c in gpu_cols},
                    [time_ratio("CuPy", "myModule", ">=", 1.0, ">= 1.0x CuPy throughput")]))
    out.append(Case("sum, device array -> Python float, n = 1000", "dev-sum", None,
                    {c: b.dev_sum(c, 1000, True) for c in gpu_cols},
                    [floor_ratio("myModule", SCALAR_FLOOR_RATIO,
                                 "<= %gx the C kernel + 8-byte copy back + sync floor of this run"
                                 % SCALAR_FLOOR_RATIO, which="scalar_median_s"),
                     time_ratio("myModule", "CuPy", "<=", 0.5, "<= 0.5x CuPy's time")]))
    host_sum_peers = {"NumPy": b.host_sum("NumPy", n), "CuPy": b.host_sum("CuPy", n),
                      "PyTorch": b.host_sum("PyTorch", n)}
    out.append(Case("sum, NumPy in, n = 1e8, device default ('auto')", "host-sum", n * ITEM,
                    dict(host_sum_peers, myModule=b.host_sum("myModule", n)),
                    [time_ratio("NumPy", "myModule", ">=", 3.0, ">= 3x NumPy")]))
    out.append(Case("sum, NumPy in, n = 1e8, device='cuda'", "host-sum", n * ITEM,
                    dict(host_sum_peers, myModule=b.host_sum("myModule", n, "cuda")),
                    [time_ratio("NumPy", "myModule", ">=", 3.0, ">= 3x NumPy")]))

    side = 4096
    out.append(Case("trace, device 4096x4096 -> Python float", "trace", None,
                    {c: b.dev_trace(c, side) for c in gpu_cols},
                    [time_ratio("myModule", "CuPy", "<=", 0.3, "<= 0.3x CuPy's time")]))
    out.append(Case("trace, NumPy 4096x4096", "trace", None,
                    {c: b.host_trace(c, side) for c in ("myModule", "NumPy")},
                    [time_ratio("myModule", "NumPy", "<=", 1.5, "<= 1.5x NumPy's time")]))
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
