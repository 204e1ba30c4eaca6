#!/usr/bin/env python3
"""Live-reload latency of `vellum serve`.

For each corpus size it starts `vellum serve` over a gen-corpus corpus
(cached in bench/work/, as bench/bench.py makes them), subscribes to the
live-reload event stream (`/__vellum/events`, Server-Sent Events), then
saves one listing the way editors do (write a temporary file, rename it
over the original) with a changed title, and measures the time from the
rename to the `reload` event. The debounce interval (set with
`--debounce-ms`, default 50 ms here) is reported separately and subtracted.
"complete" is the time, debounce excluded, until the data files that the
reload does not wait for (the search index, corpus.json) are made too.
Two listings are edited, RUNS times each: one of an author with at most 50
papers, and one of the most prolific author. Prints medians, the rebuild
time `vellum serve` itself reports, how many files it rendered (the rest
were carried over), the median of each stage (`serve --verbose`), and
the server's peak and final resident memory (Linux `/proc`).

Usage: bench/serve_bench.py [--sizes 10000,100000] [--runs 5] [--debounce-ms 50]
                            [--vellum PATH]
Needs a release build (cargo build --release) and python3. `--vellum`
measures another binary (an older commit's, for an A/B comparison).
"""
import argparse
import http.client
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
GEN = ROOT / "bench" / "gen-corpus"
VELLUM = ROOT / "target" / "release" / "vellum"


def corpus(papers):
    out = WORK / f"corpus-{papers}"
    if not (out / "listings").is_dir():
        subprocess.run([GEN, "--papers", str(papers), "--authors", str(papers // 5), "--out", out],
                       check=True, stdout=subprocess.DEVNULL)
    return out / "listings"


def site_for(listings, papers):
    """A site whose seeds/ is a copy of the listings (they are edited)."""
    site = WORK / f"serve-{papers}"
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    shutil.copytree(listings, site / "seeds")
    shutil.copytree(ROOT / "themes", site / "themes")
    (site / "site.toml").write_text('title = "Corpus"\n')
    return site


def pick_listings(seeds):
    """(file of an author with at most 50 papers, file of the most prolific author)."""
    by_author = {}
    for f in sorted(seeds.iterdir()):
        lines = f.read_text(encoding="utf-8").splitlines()
        name = next(l for l in lines[1:] if l.strip())
        by_author.setdefault(name, []).append(f)
    counts = Counter()
    for name, files in by_author.items():
        counts[name] = sum(f.read_text(encoding="utf-8").count("\narXiv") for f in files)
    small = next(n for n, c in sorted(counts.items(), key=lambda x: -x[1]) if c <= 50)
    big = counts.most_common(1)[0][0]
    return (by_author[small][0], counts[small]), (by_author[big][0], counts[big])


def retitle(path, n):
    """Saves `path` atomically with its first title changed (`… [edit n]`)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"(\narXiv\d{4}\n\n)([^\n]*?)( \[edit \d+\])?\n", rf"\g<1>\g<2> [edit {n}]\n", text, count=1)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    os.replace(tmp, path)
    return start


def wait_for_reload(stream):
    """Reads SSE lines until a `reload` event; returns the time it arrived."""
    while True:
        line = stream.readline()
        if not line:
            sys.exit("event stream closed")
        if line.strip() == b"event: reload":
            return time.perf_counter()
        if line.strip() == b"event: build-error":
            sys.exit("the rebuild failed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--debounce-ms", type=int, default=50)
    parser.add_argument("--vellum", type=Path, default=VELLUM, help="the binary to measure")
    args = parser.parse_args()
    if not args.vellum.exists():
        sys.exit("build first: cargo build --release")
    print(f"{'papers':>8} {'listing':>26} {'papers':>6} {'save→reload':>12} {'−debounce':>10} {'rebuild':>9} "
          f"{'complete':>11}")
    for size in [int(s) for s in args.sizes.split(",")]:
        site = site_for(corpus(size), size)
        server = subprocess.Popen(
            [args.vellum, "serve", "--root", site, "--port", "0", "--debounce-ms", str(args.debounce_ms), "--verbose"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            line = ""
            while "Serving at" not in line:
                line = server.stdout.readline().decode()
                if not line:
                    sys.exit("vellum serve stopped")
            port = int(re.search(r":(\d+)/", line).group(1))
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request("GET", "/__vellum/events")
            stream = conn.getresponse()
            for label, (path, papers) in zip(["author ≤ 50 papers", "most prolific author"],
                                              pick_listings(site / "seeds")):
                totals, completes, rebuilds, rendered, stages = [], [], [], [], {}
                for n in range(args.runs):
                    start = retitle(path, n)
                    arrived = wait_for_reload(stream)
                    totals.append((arrived - start) * 1000)
                    report = ""
                    while "Rebuilt" not in report:
                        report = server.stdout.readline().decode()
                    rebuilds.append(int(re.search(r"in (\d+) ms", report).group(1)))
                    rendered.append(int(re.search(r"\((\d+) of", report).group(1)))
                    line = ""
                    while not line.startswith("total"):
                        line = server.stdout.readline().decode()
                        stage = re.match(r"(\w+)\s+([\d.]+) ms", line)
                        if stage and stage.group(1) != "total":
                            stages.setdefault(stage.group(1), []).append(float(stage.group(2)))
                    while not line.startswith("Made the search index"):
                        line = server.stdout.readline().decode()
                    completes.append((time.perf_counter() - start) * 1000)
                    stages.setdefault("exports", []).append(float(re.search(r"in (\d+) ms", line).group(1)))
                total = statistics.median(totals)
                complete = statistics.median(completes)
                print(f"{size:>8} {label:>26} {papers:>6} {total:>9.0f} ms {total - args.debounce_ms:>7.0f} ms "
                      f"{statistics.median(rebuilds):>6.0f} ms {complete - args.debounce_ms:>8.0f} ms  "
                      f"{statistics.median(rendered):.0f} files rendered")
                print("         stages: " + ", ".join(
                    f"{name} {statistics.median(times):.0f}" for name, times in stages.items()) + " (ms)")
            status = Path(f"/proc/{server.pid}/status").read_text()
            memory = {m.group(1): int(m.group(2)) // 1024
                      for m in re.finditer(r"^(VmHWM|VmRSS):\s+(\d+) kB", status, re.M)}
            print(f"         memory: peak {memory['VmHWM']} MiB, resident after the runs {memory['VmRSS']} MiB")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
