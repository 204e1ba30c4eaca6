#!/usr/bin/env python3
"""Times `vellum build` on the worst shapes of title and abstract found so
far, at sizes n, 2n and 4n, to show the time grows linearly (each doubling
about doubles it) and that deep nesting neither hangs nor overflows the
stack. Prints one row per shape and size: the title's bytes, the build's
wall time, its exit status and the ratio to the size before.

    python3 bench/worst_case.py [--vellum target/release/vellum] [--n 125000]

The shapes (issue 21): many `$x$` spans; `$`, `\\text{` n times, `x`, `}`
n times, `$`; `$\\text{` n times, `x`, `}$` n times; `{` n times, `x`, `}`
n times; `\\textbf{` n times, `x`, `}` n times; `$\\frac{` unclosed n
times; and an abstract of many `$x^2$` spans.
"""

import argparse
import pathlib
import shutil
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

SHAPES = {
    "many $x$ spans": lambda n: "$x$ " * (n // 4),
    "$\\text{ nested": lambda n: "$" + "\\text{" * (n // 8) + "x" + "}" * (n // 8) + "$",
    "$\\text{ x }$ spans": lambda n: "$\\text{" * (n // 9) + "x" + "}$" * (n // 9),
    "{ nested": lambda n: "{" * (n // 2) + "x" + "}" * (n // 2),
    "\\textbf{ nested": lambda n: "\\textbf{" * (n // 9) + "x" + "}" * (n // 9),
    "unclosed $\\frac{": lambda n: "$\\frac{" * (n // 7),
}


def listing(title: str, abstract: str) -> str:
    return (
        "Test Author\n\nPublications and source records attributed to Test Author.\n\n"
        "At least 1 records · Page 1\n\narXiv2021\n\n"
        f"{title}\n\n{abstract}\n\ncs.LG\n"
    )


def build(vellum: str, title: str, abstract: str = "An abstract.") -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        site = pathlib.Path(tmp)
        shutil.copytree(ROOT / "themes", site / "themes")
        (site / "seeds").mkdir()
        (site / "seeds" / "a.txt").write_text(listing(title, abstract))
        (site / "site.toml").write_text('title = "T"\nbase_url = "https://example.org/"\n')
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [vellum, "build", "--quiet", "--root", str(site)],
                capture_output=True,
                timeout=120,
            )
            code = done.returncode
        except subprocess.TimeoutExpired:
            code = -1
        return time.perf_counter() - start, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vellum", default=str(ROOT / "target/release/vellum"))
    parser.add_argument("--n", type=int, default=125_000, help="the smallest title, in bytes")
    args = parser.parse_args()
    print(f"{'shape':<22} {'bytes':>9} {'seconds':>8} {'exit':>4} {'x prev':>6}")
    rows = [(name, make, False) for name, make in SHAPES.items()]
    rows.append(("abstract of $x^2$", lambda n: "$x^2$ " * (n // 6), True))
    for name, make, in_abstract in rows:
        previous = None
        for size in (args.n, 2 * args.n, 4 * args.n):
            text = make(size)
            if in_abstract:
                seconds, code = build(args.vellum, "A title", text)
            else:
                seconds, code = build(args.vellum, text)
            ratio = f"{seconds / previous:.1f}" if previous else ""
            shown = "hang" if code == -1 else str(code)
            print(f"{name:<22} {len(text.encode()):>9} {seconds:>8.2f} {shown:>4} {ratio:>6}", flush=True)
            previous = seconds


if __name__ == "__main__":
    main()
