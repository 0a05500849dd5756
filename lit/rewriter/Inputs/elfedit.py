#!/usr/bin/env python3
"""Damages an x86-64 ELF file the ways the rewriter must refuse.

usage: elfedit.py MODE IN OUT
  scramble-text  overwrite .text with pseudo-random bytes (packed code)
  no-sections    drop the section header table (what packers leave)
  truncate       keep only the first 3000 bytes
"""
import random
import struct
import sys

mode, src, dst = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
if mode == "truncate":
    data = data[:3000]
elif mode == "no-sections":
    data[0x28:0x30] = struct.pack("<Q", 0)  # e_shoff
    data[0x3C:0x40] = struct.pack("<HH", 0, 0)  # e_shnum, e_shstrndx
else:
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def sec(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    stroff = sec(shstrndx)[4]
    rng = random.Random(8)
    for i in range(shnum):
        name, typ, flags, addr, off, size = sec(i)[:6]
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end] == b".text":
            data[off:off + size] = bytes(rng.randrange(256) for _ in range(size))
open(dst, "wb").write(bytes(data))
