"""Builders: each contender's way to add, reduce, trace and copy on the arrays of
inputs.Data, as the Entry objects that the rows and the sweeps time."""
import numpy as np

from .cases import Entry
from .contenders import binop, upload
from .inputs import CEILING_ELEMS, ITEM, N_1E8, TRANSFER_BYTES, rotating, rotating1


class Builders:
    """Entry factories shared by the case table and the sweeps."""

    def __init__(self, libs, data, settings):
        self.libs, self.data, self.s = libs, data, settings

    def dev_binop(self, label, op, n, sync_each=False):
        def build():
            return rotating(binop(self.libs[label], op), self.data.dev_sets(label, n))
        return Entry(build, "dev:%s:%s:%d:%d" % (op, label, n, sync_each), True, "gpu", sync_each)

    def host_add(self, label, n, device=None):
        lib = self.libs[label]
        big = n >= N_1E8 // 2
        repeats = self.s.repeats_host_big if big and label != "myModule" else None

        if label == "NumPy":
            def build():
                return rotating(np.add, self.data.host_sets(n))
        elif label == "myModule":
            def build():
                mm = lib.mod
                return rotating(lambda a, b: mm.add(a, b, device=device), self.data.host_sets(n))
        elif label == "CuPy":
            def build():
                cp = lib.mod
                return rotating(lambda a, b: cp.add(cp.asarray(a), cp.asarray(b)).get(),
                                self.data.host_sets(n))
        else:
            def build():
                torch = lib.mod
                return rotating(lambda a, b: torch.add(torch.from_numpy(a).cuda(),
                                                       torch.from_numpy(b).cuda()).cpu().numpy(),
                                self.data.host_sets(n))
        needs_gpu = label in ("CuPy", "PyTorch") or device == "cuda"
        return Entry(build, "host-add:%s:%s:%d" % (label, device, n), needs_gpu, "host",
                     repeats=repeats)

    def dev_sum(self, label, n, to_python, sync_each=False):
        return self.dev_reduce(label, "sum", n, to_python, sync_each)

    def dev_reduce(self, label, name, n, to_python=False, sync_each=False, fn=None):
        """A reduction over all elements of a device array: fn (default the contender's
        `name`), optionally turned into a Python float."""
        lib = self.libs[label]

        def build():
            total = fn or getattr(lib.mod, name)
            if not to_python:
                call = total
            elif label == "PyTorch":
                def call(x):
                    return total(x).item()
            else:
                def call(x):
                    return float(total(x))
            return rotating1(call, [x for x, _ in self.data.dev_sets(label, n)])
        return Entry(build, "dev-reduce:%s:%s:%d:%d:%d" % (name, label, n, to_python, sync_each),
                     True, "gpu", sync_each)

    def host_sum(self, label, n, device=None):
        lib = self.libs[label]

        def build():
            m = lib.mod
            if label == "NumPy":
                fn = np.sum
            elif label == "myModule":
                fn = m.sum if device is None else (lambda a: m.sum(a, device=device))
            elif label == "CuPy":
                def fn(a):
                    return float(m.sum(m.asarray(a)))
            else:
                def fn(a):
                    return m.from_numpy(a).cuda().sum().item()
            return rotating1(fn, [a for a, _ in self.data.host_sets(n)])
        needs_gpu = label in ("CuPy", "PyTorch") or device == "cuda"
        big = n >= N_1E8 // 2 and label != "myModule"
        return Entry(build, "host-sum:%s:%s:%d" % (label, device, n), needs_gpu, "host",
                     repeats=self.s.repeats_host_big if big else None)

    def dev_trace(self, label, side):
        lib = self.libs[label]

        def build():
            tr = lib.mod.trace
            x = self.data.dev_matrix(label, side)
            if label == "PyTorch":
                return lambda: tr(x).item()
            return lambda: float(tr(x))
        return Entry(build, "dev-trace:%s:%d" % (label, side), True, "gpu")

    def host_trace(self, label, side):
        lib = self.libs[label]

        def build():
            tr = lib.mod.trace
            a = self.data.matrix(side)
            return lambda: tr(a)
        return Entry(build, "host-trace:%s:%d" % (label, side), False, "host")

    # ---- transfers (informational) and the streaming ceiling
    def transfer(self, label, what):
        """what: h2d/d2h x pageable/pinned, or register. One-way bytes = TRANSFER_BYTES."""
        lib = self.libs[label]
        count = TRANSFER_BYTES // ITEM

        def build():
            host = np.ascontiguousarray(self.data.A[:count])
            if label == "myModule":
                mm = lib.mod
                if what == "h2d-pageable":
                    return lambda: mm.to_device(host)
                d = mm.to_device(host)
                return lambda: d.get()
            if label == "CuPy":
                cp = lib.mod
                rt = cp.cuda.runtime
                dev = cp.asarray(host)
                if what == "register":
                    return lambda: (rt.hostRegister(host.ctypes.data, TRANSFER_BYTES, 0),
                                    rt.hostUnregister(host.ctypes.data))
                if what.endswith("pinned"):
                    mem = cp.cuda.alloc_pinned_memory(TRANSFER_BYTES)
                    buf = np.frombuffer(mem, dtype=np.float64, count=count)
                    buf[...] = host
                else:
                    buf = np.empty_like(host)
                    buf[...] = host
                hptr, dptr = buf.ctypes.data, dev.data.ptr
                keep = (mem if what.endswith("pinned") else None, buf, dev)
                if what.startswith("h2d"):
                    return lambda: (keep, rt.memcpy(dptr, hptr, TRANSFER_BYTES,
                                                    rt.memcpyHostToDevice))
                return lambda: (keep, rt.memcpy(hptr, dptr, TRANSFER_BYTES,
                                                rt.memcpyDeviceToHost))
            torch = lib.mod
            dev = torch.from_numpy(host).cuda()
            hbuf = torch.from_numpy(host.copy())
            if what.endswith("pinned"):
                hbuf = hbuf.pin_memory()
            sync = torch.cuda.synchronize
            if what.startswith("h2d"):
                return lambda: (dev.copy_(hbuf), sync())
            return lambda: (hbuf.copy_(dev), sync())

        return Entry(build, "transfer:%s:%s" % (label, what), True, "host")

    def d2d_copy(self, label, how):
        lib = self.libs[label]

        def build():
            src = upload(lib, self.data.A[:CEILING_ELEMS])
            if label == "CuPy":
                cp = lib.mod
                dst = cp.empty_like(src)
                if how == "memcpy":
                    rt = cp.cuda.runtime
                    nbytes = src.nbytes

                    def fn():
                        rt.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes,
                                       rt.memcpyDeviceToDevice, cp.cuda.get_current_stream().ptr)
                    return fn

                def kernel():
                    dst[...] = src
                return kernel
            dst = lib.mod.empty_like(src)
            return lambda: dst.copy_(src)
        return Entry(build, "d2d:%s:%s" % (label, how), True, "gpu")
