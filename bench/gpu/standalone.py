#!/usr/bin/env python3
"""Runs a fixture's generated entry from a shared library and compares it with Octave's outputs.

    standalone.py LIB SYMBOL IN.mat OUT.mat [--release SYMBOL]

LIB exports `int SYMBOL(const m2cu_array *in, m2cu_array *out, char *err, size_t err_len)` (the
m2cu ABI, `codegen/src/c/m2cu_abi.h`): the standalone `<entry>.cu` built with nvcc by
`bench/gpu/run.sh`, or the CPU `<entry>.c` built with cc (how this script is tested without a
GPU). The inputs are IN.mat's variables in file order (the fixtures store them in parameter
order); each output is read with the class and compared with the value of OUT.mat's variable in
the same position: class and size exactly, array elements exactly, scalars within 1e-12 relative
(1e-5 for single), as in `tests/common`. Pure Python (struct, zlib, ctypes): no NumPy needed.
Exit status 0 when every output agrees, 1 otherwise, 2 on a usage or load error.
"""

import argparse
import ctypes
import math
import struct
import sys
import zlib

# MAT v5 data types: struct format of one element.
MI_FORMATS = {1: "b", 2: "B", 3: "h", 4: "H", 5: "i", 6: "I", 7: "f", 9: "d", 12: "q", 13: "Q"}
MI_INT8, MI_MATRIX, MI_COMPRESSED = 1, 14, 15
# mxArray classes: (name, struct format) of the values m2cu exchanges.
CLASSES = {
    6: ("double", "d"),
    7: ("single", "f"),
    8: ("int8", "b"),
    9: ("uint8", "B"),
    10: ("int16", "h"),
    11: ("uint16", "H"),
    12: ("int32", "i"),
    13: ("uint32", "I"),
    14: ("int64", "q"),
    15: ("uint64", "Q"),
}
LOGICAL_FLAG = 0x0200
COMPLEX_FLAG = 0x0800


class MatError(Exception):
    pass


class Variable:
    """A named real array: its class, its dims (at least 2) and its values in column order."""

    def __init__(self, name, class_name, fmt, dims, values):
        self.name, self.class_name, self.fmt, self.dims, self.values = (
            name,
            class_name,
            fmt,
            dims,
            values,
        )


def elements(buf, pos, end):
    """Yields (type, data) of the MAT v5 data elements in buf[pos:end]."""
    while pos + 8 <= end:
        kind, nbytes = struct.unpack_from("<II", buf, pos)
        if kind >> 16:  # small data element: the bytes sit in the tag's second word
            nbytes, kind = kind >> 16, kind & 0xFFFF
            yield kind, buf[pos + 4 : pos + 4 + nbytes]
            pos += 8
        else:
            yield kind, buf[pos + 8 : pos + 8 + nbytes]
            # Compressed elements are not padded to 8 bytes; all others are.
            pos += 8 + (nbytes if kind == MI_COMPRESSED else (nbytes + 7) // 8 * 8)


def numbers(kind, data):
    fmt = MI_FORMATS.get(kind)
    if fmt is None:
        raise MatError(f"data type {kind} is not supported")
    count = len(data) // struct.calcsize(fmt)
    return list(struct.unpack(f"<{count}{fmt}", data[: count * struct.calcsize(fmt)]))


def matrix(data):
    """A Variable from the body of a miMATRIX element."""
    parts = list(elements(data, 0, len(data)))
    if len(parts) < 3:
        raise MatError("a matrix element without flags, dims and name")
    flags = numbers(*parts[0])[0]
    dims = numbers(*parts[1])
    name = parts[2][1].decode("ascii")
    class_id = flags & 0xFF
    if flags & COMPLEX_FLAG or class_id not in CLASSES:
        raise MatError(f"`{name}`: class {class_id} (complex: {bool(flags & COMPLEX_FLAG)}) is not supported")
    class_name, fmt = CLASSES[class_id]
    if flags & LOGICAL_FLAG:
        class_name, fmt = "logical", "?"
    values = numbers(*parts[3]) if len(parts) > 3 else []
    if class_name == "logical":
        values = [bool(v) for v in values]
    elif fmt in "df":
        values = [float(v) for v in values]
    else:
        values = [int(v) for v in values]
    return Variable(name, class_name, fmt, dims, values)


def read_mat(path):
    """The variables of a MAT v5/v7 file, in file order."""
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 128 or buf[126:128] != b"IM":
        raise MatError(f"{path}: not a little-endian MAT v5 file")
    out = []
    for kind, data in elements(buf, 128, len(buf)):
        if kind == MI_COMPRESSED:
            inner = zlib.decompress(data)
            kind, data = next(elements(inner, 0, len(inner)))
        if kind == MI_MATRIX:
            out.append(matrix(data))
    return out


class M2cuArray(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dims", ctypes.c_int64 * 3)]


def to_array(var, keep):
    """An m2cu_array over var's values (the buffer is appended to keep, to outlive the call)."""
    dims = (var.dims + [1, 1, 1])[:3] if len(var.dims) <= 3 else None
    if dims is None:
        raise MatError(f"`{var.name}` has {len(var.dims)} dimensions; m2cu takes at most 3")
    raw = struct.pack(f"<{len(var.values)}{var.fmt}", *var.values)
    buf = ctypes.create_string_buffer(raw, max(len(raw), 1))
    keep.append(buf)
    return M2cuArray(ctypes.cast(buf, ctypes.c_void_p), (ctypes.c_int64 * 3)(*dims))


def from_array(arr, like):
    """The values of an output, read with the class of the expected variable `like`."""
    dims = list(arr.dims)
    count = dims[0] * dims[1] * dims[2]
    if dims[2] == 1:
        dims = dims[:2]
    size = struct.calcsize(like.fmt)
    raw = ctypes.string_at(arr.data, count * size) if count and arr.data else b""
    values = list(struct.unpack(f"<{count}{like.fmt}", raw))
    return Variable(like.name, like.class_name, like.fmt, dims, values)


def difference(expected, actual):
    """Why actual differs from expected (as tests/common's `difference`), or None."""
    if expected.dims != actual.dims:
        return f"size {actual.dims} instead of {expected.dims}"
    scalar = len(expected.values) == 1
    tol = (1e-5 if expected.fmt == "f" else 1e-12) if scalar and expected.fmt in "df" else 0.0
    for k, (e, a) in enumerate(zip(expected.values, actual.values)):
        if e == a or (isinstance(e, float) and math.isnan(e) and math.isnan(a)):
            continue
        finite = isinstance(e, float) and math.isfinite(e) and math.isfinite(a)
        if finite and abs(e - a) <= tol * max(abs(e), abs(a)):
            continue
        return f"element {k + 1} is {a!r}, Octave has {e!r}"
    return None


def run(lib_path, symbol, inputs, expected, release_symbol):
    """Calls the entry; returns the list of problems (empty when every output agrees)."""
    lib = ctypes.CDLL(lib_path)
    entry = getattr(lib, symbol)
    entry.argtypes = [ctypes.POINTER(M2cuArray), ctypes.POINTER(M2cuArray), ctypes.c_char_p, ctypes.c_size_t]
    entry.restype = ctypes.c_int
    release = getattr(lib, release_symbol)
    release.argtypes = [ctypes.c_void_p]
    keep = []
    ins = (M2cuArray * max(len(inputs), 1))(*[to_array(v, keep) for v in inputs])
    outs = (M2cuArray * max(len(expected), 1))()
    err = ctypes.create_string_buffer(1024)
    status = entry(ins, outs, err, len(err))
    if status != 0:
        return [f"{symbol} returned {status}: {err.value.decode(errors='replace')}"]
    problems = []
    for k, want in enumerate(expected):
        got = from_array(outs[k], want)
        why = difference(want, got)
        print(f"  {want.name}: {want.class_name} {'x'.join(map(str, got.dims))}: {why or 'equal to Octave'}")
        if why:
            problems.append(f"output `{want.name}`: {why}")
        if outs[k].data:
            release(outs[k].data)
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lib")
    parser.add_argument("symbol")
    parser.add_argument("inputs")
    parser.add_argument("outputs")
    parser.add_argument("--release", default="m2cu_release", help="the library's release function")
    args = parser.parse_args(argv)
    try:
        inputs, expected = read_mat(args.inputs), read_mat(args.outputs)
        problems = run(args.lib, args.symbol, inputs, expected, args.release)
    except (OSError, MatError, AttributeError, struct.error) as e:
        print(f"standalone.py: error: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(f"MISMATCH {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
