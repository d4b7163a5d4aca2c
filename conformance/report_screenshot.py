"""Render a batch report in headless Chromium: a PNG screenshot, and a count of the <svg> charts
in the DOM Chromium built, checked against the charts in the file.

Usage: python conformance/report_screenshot.py REPORT.html -o shot.png [--window-size 1400,4000]
       [--chromium /usr/bin/chromium]

Exit status: 0 when the screenshot was written and Chromium's DOM holds as many <svg> elements
as the HTML file; 1 when they differ or the PNG looks blank; 2 when Chromium is missing or fails.
"""

from __future__ import annotations

import argparse
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--mute-audio")
TIMEOUT = 180.0


class SvgCounter(HTMLParser):
    """Counts top-level <svg> elements (charts), not nested ones."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self.count += self.depth == 0
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg" and self.depth:
            self.depth -= 1


def count_svgs(html_text: str) -> int:
    """Number of charts in an HTML document."""
    p = SvgCounter()
    p.feed(html_text)
    p.close()
    return p.count


def png_info(path: Path) -> tuple[int, int, int]:
    """(width, height, distinct byte values in the decompressed image data).

    A one-colour image compresses to scanlines of a handful of repeated bytes whatever PNG
    filter the encoder chose, so few distinct values means a blank render.
    """
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, width, height, idat = 8, 0, 0, bytearray()
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    return width, height, len(set(zlib.decompress(bytes(idat))))


def chromium_run(chromium: str, args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    """One headless Chromium invocation with a fresh profile, so no state leaks between runs."""
    cmd = [chromium, *FLAGS, f"--user-data-dir={profile}", *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as err:
        raise SystemExit(f"error: chromium did not finish within {TIMEOUT:.0f} s: "
                         f"{' '.join(cmd)}") from err


def screenshot(report: Path, out: Path, window: str = "1400,4000",
               chromium: str = CHROMIUM) -> tuple[int, int]:
    """Write the PNG; return (<svg> count in Chromium's DOM, <svg> count in the file)."""
    if not (shutil.which(chromium) or Path(chromium).is_file()):
        raise SystemExit(f"error: {chromium} not found; install Debian's chromium package "
                         "(apt-get install chromium) or pass --chromium PATH")
    if not report.is_file():
        raise SystemExit(f"error: {report}: no such report")
    url = report.resolve().as_uri()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="aliaslog-chromium-") as tmp:
        shot = chromium_run(chromium, [f"--screenshot={out.resolve()}",
                                       f"--window-size={window}", url], Path(tmp) / "shot")
        if not out.is_file():
            raise SystemExit(f"error: chromium wrote no screenshot (exit {shot.returncode}):\n"
                             + shot.stderr[-2000:])
        dom = chromium_run(chromium, ["--dump-dom", url], Path(tmp) / "dom")
        if dom.returncode != 0 or "<html" not in dom.stdout:
            raise SystemExit(f"error: chromium --dump-dom failed (exit {dom.returncode}):\n"
                             + dom.stderr[-2000:])
    return count_svgs(dom.stdout), count_svgs(report.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    """Command line: screenshot, then report the chart counts and whether the PNG has content."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path, help="the report .html")
    ap.add_argument("-o", "--out", type=Path, required=True, help="PNG to write")
    ap.add_argument("--window-size", default="1400,4000", help="WIDTH,HEIGHT in CSS pixels")
    ap.add_argument("--chromium", default=CHROMIUM, help="the Chromium binary")
    args = ap.parse_args(argv)
    try:
        rendered, in_file = screenshot(args.report, args.out, args.window_size, args.chromium)
    except SystemExit as err:
        print(err, file=sys.stderr)
        return 2
    width, height, distinct = png_info(args.out)
    print(f"{args.out}: {width}x{height} PNG, {args.out.stat().st_size} bytes")
    print(f"svg charts rendered by chromium: {rendered} (in the file: {in_file})")
    ok = True
    if rendered != in_file:
        print("error: chromium's DOM and the file disagree on the number of charts",
              file=sys.stderr)
        ok = False
    if distinct < 16:
        print("error: the screenshot looks blank (almost one colour)", file=sys.stderr)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
