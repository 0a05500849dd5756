#!/usr/bin/env python3
"""Says whether a PNG screenshot shows a page rather than a blank window:
prints its size, its distinct colours and the part of its pixels that are
not white, and exits 1 below --min-colours or --min-ink. Standard library
only (zlib): 8-bit RGB or RGBA, not interlaced, as Chromium writes them."""
import argparse
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, head = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit("%s: unsupported PNG (depth %d, colour type %d)" %
                 (path, depth, colour))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("--min-colours", type=int, default=16)
    ap.add_argument("--min-ink", type=float, default=0.01)
    o = ap.parse_args()
    width, height, bpp, rows = pixels(o.png)
    colours, ink = set(), 0
    for row in rows:
        for x in range(0, len(row), bpp):
            rgb = row[x:x + 3]
            colours.add(rgb)
            ink += rgb != b"\xff\xff\xff"
    share = ink / float(width * height)
    print("png %dx%d colours %d ink %.3f" % (width, height, len(colours), share))
    ok = len(colours) >= o.min_colours and share >= o.min_ink
    print("screenshot " + ("ok" if ok else "blank"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
