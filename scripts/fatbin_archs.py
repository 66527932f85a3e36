"""List the GPU code embedded in a shared object or object file: machine code
(sm_XY) and PTX (compute_XY) per architecture, and whether it is compressed.
For machines without cuobjdump (the CUDA toolkit's minimal installs have none).

    python scripts/fatbin_archs.py FILE [--expect "75 80 ... 120"]

Reads the fat binary headers that nvcc embeds (magic 0xBA55ED50): each entry
starts with its kind (1 = PTX, 2 = ELF), header size, payload size, and at byte
28 the architecture. With --expect it exits 1 unless every listed architecture
has machine code and the newest also has PTX.
"""
import argparse
import struct
import sys

MAGIC = struct.pack("<I", 0xBA55ED50)
ZSTD = b"\x28\xb5\x2f\xfd"


def entries(data):
    """(kind, arch, compressed) for every entry of every fat binary in `data`."""
    pos = data.find(MAGIC)
    while pos != -1:
        _, header, size = struct.unpack_from("<HHQ", data, pos + 4)
        at, end = pos + header, pos + header + size
        while at < end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, at)
            if entry_header == 0:
                break
            arch = struct.unpack_from("<I", data, at + 28)[0]
            body = data[at + entry_header:at + entry_header + 4]
            yield kind, arch, body == ZSTD
            at += entry_header + payload
        pos = data.find(MAGIC, max(end, pos + 4))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--expect", help="architectures that must have machine code")
    args = parser.parse_args(argv)
    with open(args.file, "rb") as f:
        found = list(entries(f.read()))
    sass = sorted({arch for kind, arch, _ in found if kind == 2})
    ptx = sorted({arch for kind, arch, _ in found if kind == 1})
    compressed = sum(1 for *_, c in found if c)
    print("machine code: " + " ".join("sm_%d" % a for a in sass))
    print("PTX:          " + " ".join("compute_%d" % a for a in ptx))
    print("entries: %d, compressed (zstd): %d" % (len(found), compressed))
    if args.expect:
        want = sorted(int(a) for a in args.expect.replace(",", " ").split())
        missing = [a for a in want if a not in sass]
        if missing or max(want) not in ptx:
            print("error: no machine code for %s%s" % (
                " ".join("sm_%d" % a for a in missing) or "-",
                "" if max(want) in ptx else "; no PTX for compute_%d" % max(want)), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
