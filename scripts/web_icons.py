#!/usr/bin/env python3
"""Makes the offline site's icons (scripts/build-web.sh): icon.svg and
icon-192.png, icon-512.png, drawn here (three discs, as on a Connect Four
board, on meeple's blue), with the standard library only.

Usage: python3 scripts/web_icons.py DIR
"""

import struct
import sys
import zlib
from pathlib import Path

BLUE = (31, 78, 121)
DISCS = [  # centre x, centre y, radius (fractions of the side), colour
    (0.30, 0.66, 0.15, (220, 50, 47)),
    (0.70, 0.66, 0.15, (250, 200, 40)),
    (0.50, 0.32, 0.15, (250, 250, 250)),
]


def svg() -> str:
    discs = "".join(
        f'<circle cx="{x * 512:.0f}" cy="{y * 512:.0f}" r="{r * 512:.0f}" fill="rgb{c}"/>' for x, y, r, c in DISCS
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
        f'<rect width="512" height="512" rx="96" fill="rgb{BLUE}"/>{discs}</svg>\n'
    )


def png(size: int) -> bytes:
    """A full-bleed square (maskable: the discs are inside the safe circle)."""
    rows = bytearray()
    for j in range(size):
        rows.append(0)
        y = (j + 0.5) / size
        for i in range(size):
            x = (i + 0.5) / size
            colour = BLUE
            for cx, cy, r, c in DISCS:
                if (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                    colour = c
            rows.extend((*colour, 255))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")


def main() -> None:
    out = Path(sys.argv[1])
    (out / "icon.svg").write_text(svg())
    for size in (192, 512):
        (out / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
