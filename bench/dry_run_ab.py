#!/usr/bin/env python3
"""A/B of vellum binaries through the null sink: each builds its site with
`build --dry-run --verbose` (everything rendered, nothing written), the
binaries alternating (in reverse order every other round), RUNS
times; prints the medians of wall time, CPU
time (user + system), the render and parse stages and peak memory.

Usage: bench/dry_run_ab.py [--runs 5] BINARY:SITE [BINARY:SITE ...]

Each argument pairs a binary with a site root, so that an old binary can
build with its own themes (`git archive OLD themes | tar -x -C DIR`)
when a change moved work between the theme and the code. A
like-with-like site is what bench/bench.py builds: site.toml with
`paginate_by = 20`, `feeds = false`, `search = false`, `exports = false`.
Needs /usr/bin/time.
"""
import argparse
import re
import statistics
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("pairs", nargs="+", metavar="BINARY:SITE")
    args = parser.parse_args()
    if len(set(args.pairs)) != len(args.pairs):
        sys.exit("each BINARY:SITE once")
    figures = {pair: {"wall": [], "cpu": [], "render": [], "parse": [], "peak": []} for pair in args.pairs}
    for round_ in range(args.runs):
        for pair in args.pairs if round_ % 2 == 0 else reversed(args.pairs):
            binary, site = pair.split(":", 1)
            p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %U %S %M", binary, "build", "--dry-run",
                                "--verbose", "--root", site], capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{pair}: exit {p.returncode}\n{p.stderr[-2000:]}")
            found = [re.search(pattern, p.stderr, re.M) for pattern in (
                r"TIME (\S+) (\S+) (\S+) (\S+)", r"^render\s+(\S+) ms", r"^parse\s+(\S+) ms")]
            if not all(found):
                sys.exit(f"{pair}: no timings (TIME line, render and parse stages) in\n{p.stderr[-2000:]}")
            wall, user, system, peak = found[0].groups()
            f = figures[pair]
            f["wall"].append(float(wall))
            f["cpu"].append(float(user) + float(system))
            f["peak"].append(int(peak) / 1024)
            f["render"].append(float(found[1].group(1)))
            f["parse"].append(float(found[2].group(1)))
    for pair, f in figures.items():
        m = {k: statistics.median(v) for k, v in f.items()}
        print(f"{pair}: wall {m['wall']:.2f} s, CPU {m['cpu']:.2f} s, render {m['render']:.0f} ms, "
              f"parse {m['parse']:.0f} ms, peak {m['peak']:.0f} MiB")


if __name__ == "__main__":
    main()
