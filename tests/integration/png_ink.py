#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The share of "ink" (pixels not the page's white background) in each quadrant of a PNG
screenshot, with the standard library only (no PIL on a fresh CI machine): prints
`top-left top-right bottom-left bottom-right` as fractions, one line.
   png_ink.py FILE
Reads 8-bit non-interlaced greyscale, RGB or RGBA, what Chromium's --screenshot writes."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or colour not in (0, 2, 6):
                sys.exit(f"{path}: depth {depth}, colour type {colour}, interlace {interlace}: not read")
            channels = {0: 1, 2: 3, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        # PNG's row filters, undone (the spec, section 9).
        if f == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b, c = prev[i], prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    width, height, channels, rows = read_png(sys.argv[1])
    ink = [0, 0, 0, 0]
    for y, line in enumerate(rows):
        q = 0 if y < height // 2 else 2
        for x in range(width):
            px = line[x * channels:x * channels + min(channels, 3)]
            if min(px) < 235:  # not white nor near it (antialiasing at an edge)
                ink[q + (0 if x < width // 2 else 1)] += 1
    area = (width // 2) * (height // 2)
    print(" ".join(f"{n / area:.4f}" for n in ink))


main()
