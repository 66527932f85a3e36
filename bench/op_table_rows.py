"""The rows derived from the op table (myModule.ops, read through bench/op_rows.py):
every elementwise operation (but the four classic ones, rows of peers_table_rows) at
n = 2^26, axpy at n = 1e8 against its peers' spellings, and every reduction but sum at
n = 1e8, each contender calling its own function of the same name."""
from harness.cases import Case, Entry, n_label
from harness.contenders import upload
from harness.inputs import ITEM, N_1E8, N_2_26, rotating
from harness import targets
import op_rows

GPU_COLUMNS = ("myModule", "CuPy", "PyTorch")


# ---- the entries (inputs and counterparts from the declaration)

def op_inputs(data, label, decl, n):
    """(params, arrays) for one operation of the op table on the contender's device;
    arrays with the same spec (source, block, transform) are built and uploaded once,
    in data's cache (emptied by data.clear())."""
    params, specs = op_rows.input_specs(decl)
    arrays = []
    for spec in specs:
        key = (label, "op-input", spec, n)
        if key not in data.dev:
            hkey = ("host", "op-input", spec, n)
            if hkey not in data.dev:
                data.dev[hkey] = op_rows.materialize(spec, (data.A, data.B), n)
            data.dev[key] = upload(data.libs[label], data.dev[hkey])
        arrays.append(data.dev[key])
    data.libs[label].sync()
    return params, arrays


def dev_op(b, label, decl, n):
    """One elementwise operation of the op table on device arrays: the contender's
    function of the same name (op_rows.counterpart), or a skip saying it has none."""
    lib = b.libs[label]
    fn, why = op_rows.counterpart(label, lib.mod, decl)

    def build():
        params, arrays = op_inputs(b.data, label, decl, n)
        return lambda: fn(*params, *arrays)
    return Entry(build, "dev-op:%s:%s:%d" % (decl["name"], label, n), True, "gpu", skip=why)


def dev_op_reduce(b, label, decl, n, sync_each=False):
    fn, why = op_rows.counterpart(label, b.libs[label].mod, decl)
    entry = b.dev_reduce(label, decl["name"], n, sync_each=sync_each, fn=fn)
    entry.skip = why
    return entry


def dev_axpy(b, label, how, n):
    """alpha * x + y on device arrays, how: 'myModule' (axpy), 'kernel' (CuPy
    ElementwiseKernel, compiled and warmed in build(), outside the timing), 'fused'
    (torch.add(y, x, alpha=...)) or 'expression' (alpha * x + y, two kernels)."""
    lib = b.libs[label]
    alpha = op_rows.PARAM

    def build():
        m = lib.mod
        if how == "myModule":
            def fn(x, y):
                return m.axpy(alpha, x, y)
        elif how == "kernel":
            kernel = m.ElementwiseKernel("float64 a, float64 x, float64 y", "float64 z",
                                         "z = a * x + y", "bench_axpy")
            kernel(alpha, *b.data.dev_sets(label, n)[0])
            lib.sync()

            def fn(x, y):
                return kernel(alpha, x, y)
        elif how == "fused":
            def fn(x, y):
                return m.add(y, x, alpha=alpha)
        else:
            def fn(x, y):
                return alpha * x + y
        return rotating(fn, b.data.dev_sets(label, n))
    return Entry(build, "dev-axpy:%s:%s:%d" % (label, how, n), True, "gpu")


# ---- the rows

def cases(b, libs):
    """The rows derived from myModule.ops: every elementwise operation (but the four with
    rows of their own) at n = 2^26, axpy at n = 1e8 against its peers' spellings, and every
    reduction but sum at n = 1e8."""
    mm = libs["myModule"]
    if not mm.ok:
        return [Case("operations of the op table", "op-table", None, {},
                     note="no rows: %s" % mm.reason(False))]
    out = []
    for decl in op_rows.ops_of(mm.mod.ops, "elementwise"):
        if decl["name"] not in op_rows.CLASSIC_BINOPS:
            out.append(op_case(b, decl, N_2_26))
    if any(d["name"] == "axpy" for d in mm.mod.ops):
        out += axpy_cases(b, N_1E8)
    for decl in op_rows.ops_of(mm.mod.ops, "reduction"):
        if decl["name"] != "sum":
            out += reduction_cases(b, decl, N_1E8)
    skipped = op_rows.skipped_ops(mm.mod.ops)
    if skipped:
        out.append(Case("operations of the op table without a row", "op-table", None, {},
                        note="; ".join(skipped)))
    return out


def missing_note(entries):
    return "; ".join(e.skip for e in entries.values() if e.skip)


def op_case(b, decl, n):
    entries = {c: dev_op(b, c, decl, n) for c in GPU_COLUMNS}
    return Case("%s, device arrays, n = %s" % (decl["name"], n_label(n)), "op-%d" % n,
                op_rows.bytes_moved(decl, n), entries,
                targets.of("op-table"),
                note=missing_note(entries))


def axpy_cases(b, n):
    """axpy(2.0, x, y) beside a CuPy ElementwiseKernel and torch's fused add (one pass),
    and beside the expression 2.0 * x + y (two passes); bytes: 24 per element."""
    nbytes = 3 * n * ITEM
    mine = dev_axpy(b, "myModule", "myModule", n)
    return [
        Case("axpy, device arrays, n = %s, vs CuPy ElementwiseKernel" % n_label(n), "axpy",
             nbytes, {"myModule": mine, "CuPy": dev_axpy(b, "CuPy", "kernel", n),
                      "PyTorch": dev_axpy(b, "PyTorch", "fused", n)},
             targets.of("axpy-kernel", nbytes),
             note="PyTorch: torch.add(y, x, alpha=2.0)"),
        Case("axpy, device arrays, n = %s, vs CuPy 2.0 * x + y" % n_label(n), "axpy",
             nbytes, {"myModule": mine, "CuPy": dev_axpy(b, "CuPy", "expression", n),
                      "PyTorch": dev_axpy(b, "PyTorch", "expression", n)},
             targets.of("axpy-expression"),
             note="PyTorch: 2.0 * x + y"),
    ]


def reduction_cases(b, decl, n):
    out = []
    for sync_each, suffix in ((False, ""), (True, ", call + sync")):
        entries = {c: dev_op_reduce(b, c, decl, n, sync_each) for c in GPU_COLUMNS}
        out.append(Case("%s, device array, n = %s%s" % (decl["name"], n_label(n), suffix),
                        "op-reduce", op_rows.bytes_moved(decl, n), entries,
                        targets.of("reduction"),
                        note=missing_note(entries)))
    return out
