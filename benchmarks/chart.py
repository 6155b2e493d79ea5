#!/usr/bin/env python3
"""Chart of `payrun bench --json` output: employees/s against store size (log x) for payrun, the
COPY floor and the SQL baseline, written as a PNG.

    payrun bench --employees 1000,10000,100000 --json > bench.json
    python3 benchmarks/chart.py bench.json benchmarks/bench-chart.png

Python 3 standard library only (no matplotlib): the PNG is encoded with zlib + struct and the
labels are drawn with a small built-in 5x7 bitmap font (upper case, digits and a few symbols).
"""
import json
import math
import struct
import sys
import zlib

# 5x7 glyphs, one string of 5 columns per row; '#' = ink. Lower case is drawn as upper case.
FONT = {
    'A': [" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
    'B': ["#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "],
    'C': [" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "],
    'D': ["#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "],
    'E': ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"],
    'F': ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "],
    'G': [" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"],
    'H': ["#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
    'I': [" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    'J': ["  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "],
    'K': ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"],
    'L': ["#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"],
    'M': ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"],
    'N': ["#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"],
    'O': [" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
    'P': ["#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "],
    'Q': [" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"],
    'R': ["#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"],
    'S': [" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "],
    'T': ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "],
    'U': ["#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
    'V': ["#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "],
    'W': ["#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "],
    'X': ["#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"],
    'Y': ["#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "],
    'Z': ["#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"],
    '0': [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    '1': ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    '2': [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    '3': ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    '4': ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    '5': ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    '6': ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    '7': ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    '8': [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    '9': [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
    ' ': ["     "] * 7,
    '.': ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "],
    ',': ["     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "],
    ':': ["     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "],
    '/': ["    #", "    #", "   # ", "  #  ", " #   ", "#    ", "#    "],
    '(': ["   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "],
    ')': [" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "],
    '-': ["     ", "     ", "     ", "#####", "     ", "     ", "     "],
    '_': ["     ", "     ", "     ", "     ", "     ", "     ", "#####"],
    '+': ["     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "],
    '=': ["     ", "     ", "#####", "     ", "#####", "     ", "     "],
    '%': ["##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"],
    '<': ["   # ", "  #  ", " #   ", "#    ", " #   ", "  #  ", "   # "],
    '>': [" #   ", "  #  ", "   # ", "    #", "   # ", "  #  ", " #   "],
    'x': ["     ", "     ", "#   #", " # # ", "  #  ", " # # ", "#   #"],
    '?': [" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "],
    "'": ["  #  ", "  #  ", "     ", "     ", "     ", "     ", "     "],
}

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GREY = (215, 215, 215)
DARK = (90, 90, 90)
SERIES = [
    ("payrun", ("payrun", "employeesPerSecond"), (31, 119, 180)),
    ("COPY floor", ("floor", "employeesPerSecond"), (44, 160, 44)),
    ("SQL baseline", ("baseline", "employeesPerSecond"), (214, 39, 40)),
]


class Canvas:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.pixels = bytearray(WHITE * (width * height))

    def set(self, x, y, color):
        if 0 <= x < self.width and 0 <= y < self.height:
            i = 3 * (y * self.width + x)
            self.pixels[i:i + 3] = bytes(color)

    def rect(self, x0, y0, x1, y1, color):
        for y in range(max(0, y0), min(self.height, y1)):
            for x in range(max(0, x0), min(self.width, x1)):
                self.set(x, y, color)

    def line(self, x0, y0, x1, y1, color, thickness=1):
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        r = thickness // 2
        while True:
            self.rect(x0 - r, y0 - r, x0 - r + thickness, y0 - r + thickness, color)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, text, color=BLACK, scale=2):
        """Draws text with its top-left corner at (x, y); returns the width drawn."""
        cursor = x
        for ch in text:
            glyph = FONT.get(ch) or FONT.get(ch.upper()) or FONT['?']
            for row, bits in enumerate(glyph):
                for col, bit in enumerate(bits):
                    if bit == '#':
                        self.rect(cursor + col * scale, y + row * scale, cursor + (col + 1) * scale, y + (row + 1) * scale, color)
            cursor += 6 * scale
        return cursor - x

    def vtext(self, x, y, text, color=BLACK, scale=2):
        """Draws text rotated 90° counter-clockwise, reading bottom to top, starting at (x, y)."""
        cursor = y
        for ch in text:
            glyph = FONT.get(ch) or FONT.get(ch.upper()) or FONT['?']
            for row, bits in enumerate(glyph):
                for col, bit in enumerate(bits):
                    if bit == '#':
                        px, py = x + row * scale, cursor - (col + 1) * scale
                        self.rect(px, py, px + scale, py + scale, color)
            cursor -= 6 * scale

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.pixels[3 * y * self.width:3 * (y + 1) * self.width]) for y in range(self.height))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def text_width(text, scale=2):
    return len(text) * 6 * scale


def short(value):
    """1000 -> 1K, 2500000 -> 2.5M."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= limit:
            v = value / limit
            return ("%d" % round(v) if abs(v - round(v)) < 0.05 else "%.1f" % v) + suffix
    return "%d" % round(value) if abs(value - round(value)) < 0.05 else "%.1f" % value


def nice_step(span, count=5):
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if m * magnitude >= raw:
            return m * magnitude
    return 10 * magnitude


def dig(entry, path):
    value = entry
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def render(report, width=960, height=600):
    sizes = sorted(report.get("sizes", []), key=lambda e: e.get("employees", 0))
    if not sizes:
        raise ValueError("the JSON has no 'sizes' entries (run payrun bench --json)")
    xs = [float(e["employees"]) for e in sizes]
    series = [(name, color, [dig(e, path) for e in sizes]) for name, path, color in SERIES]
    values = [v for _, _, vs in series for v in vs if v is not None]
    if not values:
        raise ValueError("no employees/s figures in the JSON")

    canvas = Canvas(width, height)
    left, right, top, bottom = 120, width - 30, 70, height - 90
    # x: log10 of the store size, padded half a decade (a whole one for a single size).
    lo, hi = math.log10(min(xs)), math.log10(max(xs))
    pad = 0.5 if hi > lo else 1.0
    lo, hi = lo - pad, hi + pad
    y_max = max(values) * 1.12
    step = nice_step(y_max)
    y_max = math.ceil(y_max / step) * step

    def px(x):
        return int(round(left + (math.log10(x) - lo) / (hi - lo) * (right - left)))

    def py(y):
        return int(round(bottom - y / y_max * (bottom - top)))

    # Grid, ticks and labels.
    y = 0.0
    while y <= y_max + step / 2:
        canvas.line(left, py(y), right, py(y), GREY)
        label = short(y)
        canvas.text(left - 10 - text_width(label), py(y) - 7, label, DARK)
        y += step
    for decade in range(math.ceil(lo), math.floor(hi) + 1):
        x = px(10 ** decade)
        canvas.line(x, top, x, bottom, GREY)
    for x in xs:
        canvas.line(px(x), bottom, px(x), bottom + 6, BLACK)
        label = short(x)
        canvas.text(px(x) - text_width(label) // 2, bottom + 12, label, BLACK)
    canvas.line(left, top, left, bottom, BLACK, 2)
    canvas.line(left, bottom, right, bottom, BLACK, 2)

    # Axis labels and title.
    xlabel = "store size (employees, log scale)"
    canvas.text((left + right - text_width(xlabel)) // 2, bottom + 45, xlabel)
    ylabel = "employees per second"
    canvas.vtext(22, (top + bottom + text_width(ylabel)) // 2, ylabel)
    title = "payrun month-end: employees/s against store size"
    canvas.text((width - text_width(title)) // 2, 14, title)
    machine = report.get("machine", {})
    sub = "commit %s, %s cores, %s" % (machine.get("commit") or "?", machine.get("cores", "?"), (machine.get("date") or "?")[:10])
    canvas.text((width - len(sub) * 6) // 2, 40, sub, DARK, scale=1)

    # Series: lines with square markers.
    for name, color, vs in series:
        points = [(px(x), py(v)) for x, v in zip(xs, vs) if v is not None]
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            canvas.line(x0, y0, x1, y1, color, 3)
        for x0, y0 in points:
            canvas.rect(x0 - 5, y0 - 5, x0 + 6, y0 + 6, color)

    # Legend inside the plot, in the corner its box hides the least of the lines and markers
    # (top right, top left, bottom right, bottom left on a tie).
    box_w = 40 + max(text_width(name) for name, _, _ in series) + 20
    box_h = 14 + 26 * len(series)
    drawn = []
    for _, _, vs in series:
        points = [(px(x), py(v)) for x, v in zip(xs, vs) if v is not None]
        drawn += points
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            drawn += [(x0 + (x1 - x0) * k / 64, y0 + (y1 - y0) * k / 64) for k in range(1, 64)]
    corners = [(right - box_w - 10, top + 10), (left + 10, top + 10),
               (right - box_w - 10, bottom - box_h - 10), (left + 10, bottom - box_h - 10)]

    def hidden(corner):
        cx, cy = corner
        return sum(1 for x, y in drawn if cx - 6 <= x <= cx + box_w + 6 and cy - 6 <= y <= cy + box_h + 6)

    bx, by = min(corners, key=hidden)
    canvas.rect(bx, by, bx + box_w, by + box_h, WHITE)
    for x0, y0, x1, y1 in ((bx, by, bx + box_w, by), (bx, by + box_h, bx + box_w, by + box_h), (bx, by, bx, by + box_h),
                           (bx + box_w, by, bx + box_w, by + box_h)):
        canvas.line(x0, y0, x1, y1, DARK)
    for i, (name, color, _) in enumerate(series):
        ly = by + 12 + 26 * i
        canvas.line(bx + 10, ly + 7, bx + 34, ly + 7, color, 3)
        canvas.rect(bx + 18, ly + 2, bx + 27, ly + 12, color)
        canvas.text(bx + 44, ly, name)
    return canvas.png()


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: chart.py BENCH.json OUT.png   (BENCH.json from `payrun bench --json`; '-' reads stdin)\n")
        return 2
    source = sys.stdin if argv[1] == "-" else open(argv[1], encoding="utf-8")
    with source:
        report = json.load(source)
    try:
        png = render(report)
    except (ValueError, KeyError) as error:
        sys.stderr.write("chart.py: %s\n" % error)
        return 1
    with open(argv[2], "wb") as out:
        out.write(png)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
