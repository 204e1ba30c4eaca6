#!/usr/bin/env python3
"""Vellum vs Hugo build benchmark.

For each corpus size it generates (once, cached in bench/work/) a synthetic
corpus with bench/gen-corpus (a copy of ../shared/tools/gen-corpus), including its --hugo copy, then
builds it alternately with Vellum and Hugo, RUNS times each, into fresh
output directories, measuring every build with /usr/bin/time -v. Vellum is
built twice per run: like with like (feeds, search index and every export
file off, so both write the same
kinds of pages: paper, term, list and home pages plus a sitemap) and full.
Prints medians of wall time, CPU time (user+sys), peak RSS, files and bytes
written, the Vellum/Hugo ratios, and the physical floor: the time `cp -r`
takes to write the same files to the same disk.

Past 200,000 papers (the issue's 1,000,000-paper goal) the corpus is made
without its Hugo copy, Hugo is not run (at 1,000,000 papers it would need
about 40 GB), and Vellum builds once per run the complete site the goal
names: every page and the search index, per-paper export files off; the
floor then copies that complete tree (at 1,000,000 papers about 30 GB for
the build and 30 GB for its copy).

Before generating anything the script checks free disk space and inodes
under bench/work/ against what the sizes need (estimated per paper from
100,000-paper runs) and stops, saying what it needs, when they
fall short.

Usage: bench/bench.py [--sizes 10000,100000] [--runs 3] [--no-hugo]
                      [--papers-per-author 5] [--out DIR]
`--out` sets where the builds write (default bench/work/); on a tmpfs
(`--out /dev/shm/vellum-bench`) the disk's noise and speed are left out,
which shows how the work itself grows with the corpus.
Needs: python3, /usr/bin/time, hugo (apt-get install hugo) unless --no-hugo,
and a release build (cargo build --release).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
GEN = ROOT / "bench" / "gen-corpus"
VELLUM = ROOT / "target" / "release" / "vellum"
# Largest corpus built with Hugo too.
HUGO_MAX = 200_000
# Disk bytes and inodes per paper of the listings, their Hugo copy and each
# output tree: bytes and files as measured at 100,000 papers, rounded up;
# inodes add an estimated directory per page (not counted).
BYTES_PER_PAPER = {"listings": 5_200, "hugo-copy": 4_100, "vellum-lwl": 16_000,
                   "vellum-full": 35_000, "vellum-complete": 30_000, "hugo": 3_100}
INODES_PER_PAPER = {"listings": 0.3, "hugo-copy": 1.1, "vellum-lwl": 2.8,
                    "vellum-full": 5.0, "vellum-complete": 3.6, "hugo": 3.3}


def timed(cmd, cwd=None):
    """Runs cmd under /usr/bin/time -v; returns wall s, cpu s, peak RSS MB."""
    out = subprocess.run(["/usr/bin/time", "-v", *cmd], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{out.stderr[-3000:]}")
    field = lambda name: re.search(rf"{name}: (.+)", out.stderr).group(1).strip()
    wall = field(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)")
    parts = [float(p) for p in wall.split(":")]
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    cpu = float(field("User time \\(seconds\\)")) + float(field("System time \\(seconds\\)"))
    rss = int(field("Maximum resident set size \\(kbytes\\)")) / 1024
    return {"wall": seconds, "cpu": cpu, "rss": rss, "stdout": out.stdout, "stderr": out.stderr}


def tree_size(path):
    files = total = 0
    for dirpath, _, names in os.walk(path):
        for n in names:
            files += 1
            total += os.path.getsize(os.path.join(dirpath, n))
    return files, total


# site.toml lines of each kind of Vellum build beyond title, base URL and pager.
VELLUM_KINDS = {
    "vellum-lwl": "feeds = false\nsearch = false\nexports = false\n",
    "vellum-full": "",
    "vellum-complete": "paper_exports = false\n",
}


def kinds_for(size, hugo):
    """The builds of one run at `size` papers, in the order they run."""
    if size > HUGO_MAX:
        return ["vellum-complete"]
    return ["vellum-lwl", "hugo", "vellum-full"] if hugo else ["vellum-lwl", "vellum-full"]


def floor_of(size):
    """The build whose output tree the floor copies: like with like where
    Hugo runs, the complete site beyond."""
    return "vellum-lwl" if size <= HUGO_MAX else "vellum-complete"


def check_space(sizes, hugo, out):
    """Exits, saying what is needed, unless the file system under WORK has
    room for every corpus not yet generated and the one under `out` for
    every output tree of `sizes` (one check when they are the same)."""
    needs = {}  # device -> [directory, bytes, inodes]

    def need(directory, parts, size):
        slot = needs.setdefault(os.stat(directory).st_dev, [directory, 0, 0])
        slot[1] += sum(BYTES_PER_PAPER[p] for p in parts) * size
        slot[2] += int(sum(INODES_PER_PAPER[p] for p in parts) * size)

    for size in sizes:
        # The floor's copy needs as much again as the tree it copies.
        need(out, kinds_for(size, hugo) + [floor_of(size)], size)
        if not (WORK / f"corpus-{size}" / "manifest.json").exists():
            need(WORK, ["listings"] + ["hugo-copy"] * (size <= HUGO_MAX), size)
    for directory, need_bytes, need_inodes in needs.values():
        fs = os.statvfs(directory)
        free_bytes, free_inodes = fs.f_bavail * fs.f_frsize, fs.f_favail
        print(f"disk under {directory}: {free_bytes / 2**30:.1f} GiB and {free_inodes:,} inodes free; "
              f"these sizes need about {need_bytes / 2**30:.1f} GiB and {need_inodes:,} inodes there")
        if need_bytes > free_bytes or need_inodes > free_inodes:
            sys.exit("not enough space: free some, or pass smaller --sizes")


def corpus(papers, authors):
    out = WORK / f"corpus-{papers}"
    if not (out / "manifest.json").exists():
        shutil.rmtree(out, ignore_errors=True)
        print(f"generating {papers} papers, {authors} authors ...", flush=True)
        subprocess.run([sys.executable, str(GEN), "--papers", str(papers), "--authors", str(authors),
                        "--out", str(out)] + ["--hugo"] * (papers <= HUGO_MAX),
                       check=True, stdout=subprocess.DEVNULL)
    return out


def vellum_site(corpus_dir, kind):
    site = WORK / f"{corpus_dir.name}-{kind}"
    if not site.exists():
        site.mkdir(parents=True)
        os.symlink(corpus_dir / "listings", site / "seeds")
    # The theme of this checkout, not one copied by an earlier run.
    shutil.rmtree(site / "themes", ignore_errors=True)
    shutil.copytree(ROOT / "themes", site / "themes")
    (site / "site.toml").write_text(
        'title = "Corpus"\nbase_url = "https://example.org/"\npaginate_by = 20\n'
        + VELLUM_KINDS[kind])
    return site


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-hugo", action="store_true")
    ap.add_argument("--papers-per-author", type=int, default=5)
    ap.add_argument("--out", type=Path, default=WORK,
                    help="where the builds (and the floor's copy) write; a tmpfs such as "
                         "/dev/shm/vellum-bench leaves the disk out")
    a = ap.parse_args()
    if not VELLUM.exists():
        sys.exit("build Vellum first: cargo build --release")
    if not GEN.exists():
        sys.exit(f"gen-corpus not found at {GEN}")
    WORK.mkdir(parents=True, exist_ok=True)
    a.out.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    hugo = not a.no_hugo and shutil.which("hugo") is not None
    if not a.no_hugo and not hugo:
        print("hugo not found (apt-get install hugo): Vellum only, no ratios", flush=True)
    check_space(sizes, hugo, a.out)
    rows = []
    for size in sizes:
        cdir = corpus(size, max(1, size // a.papers_per_author))
        manifest = json.loads((cdir / "manifest.json").read_text())
        results = {kind: [] for kind in [*VELLUM_KINDS, "hugo", "floor"]}
        for run in range(a.runs):
            for kind in kinds_for(size, hugo):
                if kind == "hugo":
                    out = a.out / "out-hugo"
                    shutil.rmtree(out, ignore_errors=True)
                    r = timed(["hugo", "--quiet", "--source", str(cdir / "hugo"), "--destination", str(out)])
                else:
                    site = vellum_site(cdir, kind)
                    out = a.out / f"out-{kind}"
                    shutil.rmtree(out, ignore_errors=True)
                    r = timed([str(VELLUM), "build", "--verbose", "--root", str(site), "--output-dir", str(out)])
                r["files"], r["bytes"] = tree_size(out)
                results[kind].append(r)
                print(f"  {size} run {run + 1} {kind}: {r['wall']:.2f} s wall, {r['cpu']:.2f} s cpu, "
                      f"{r['rss']:.0f} MB, {r['files']} files, {r['bytes'] / 2**20:.0f} MiB", flush=True)
                if kind == floor_of(size):
                    copy = a.out / "out-floor"
                    shutil.rmtree(copy, ignore_errors=True)
                    f = timed(["cp", "-r", str(out), str(copy)])
                    results["floor"].append(f)
                    shutil.rmtree(copy, ignore_errors=True)
        last = results["vellum-full"] or results["vellum-complete"]
        stages = last[-1]["stderr"] if last else ""
        rows.append((size, manifest, results, stages))

    print("\nmedians of", a.runs, "runs")
    print(f"{'papers':>8} {'build':<12} {'wall s':>8} {'cpu s':>8} {'RSS MB':>8} {'files':>8} {'MiB':>7}")
    for size, manifest, results, stages in rows:
        for kind in [*VELLUM_KINDS, "hugo", "floor"]:
            runs = results[kind]
            if not runs:
                continue
            # The floor copies one build's tree: same files and bytes.
            measured = runs[0] if "files" in runs[0] else results[floor_of(size)][0]
            files, mib = measured["files"], measured["bytes"] / 2**20
            print(f"{size:>8} {kind:<12} {median(runs, 'wall'):>8.2f} {median(runs, 'cpu'):>8.2f} "
                  f"{median(runs, 'rss'):>8.0f} {files:>8} {mib:>7.0f}")
        if results["hugo"]:
            lwl, hugo = results["vellum-lwl"], results["hugo"]
            print(f"{size:>8} Vellum/Hugo  wall {median(lwl, 'wall') / median(hugo, 'wall'):.3f}  "
                  f"cpu {median(lwl, 'cpu') / median(hugo, 'cpu'):.3f}  "
                  f"RSS {median(lwl, 'rss') / median(hugo, 'rss'):.3f}")
        if results["vellum-complete"] and results["floor"]:
            print(f"{size:>8} complete build / floor  wall "
                  f"{median(results['vellum-complete'], 'wall') / median(results['floor'], 'wall'):.2f}")
        print(f"{size:>8} stages of the last full or complete Vellum build:\n" +
              "\n".join("           " + l for l in stages.splitlines() if re.match(r"^[a-z]+ +[0-9]", l)))
    if len(rows) >= 2:
        (s1, _, r1, _), (s2, _, r2, _) = rows[0], rows[-1]
        for kind in [k for k in VELLUM_KINDS if r1[k] and r2[k]]:
            print(f"\nscaling of {kind}, {s1} -> {s2} papers ({s2 / s1:.0f}x): "
                  f"wall {median(r2[kind], 'wall') / median(r1[kind], 'wall'):.1f}x, "
                  f"RSS {median(r2[kind], 'rss') / median(r1[kind], 'rss'):.1f}x")


if __name__ == "__main__":
    main()
