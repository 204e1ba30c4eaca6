#!/usr/bin/env python3
"""Vellum vs Hugo build benchmark.

For each corpus size it generates (once, cached in bench/work/) a synthetic
corpus with ../shared/tools/gen-corpus, including its --hugo copy, then
builds it alternately with Vellum and Hugo, RUNS times each, into fresh
output directories, measuring every build with /usr/bin/time -v. Vellum is
built twice per run: like with like (feeds, search index and every export
file off, so both write the same
kinds of pages: paper, term, list and home pages plus a sitemap) and full.
Prints medians of wall time, CPU time (user+sys), peak RSS, files and bytes
written, the Vellum/Hugo ratios, and the physical floor: the time `cp -r`
takes to write the same files to the same disk.

Usage: bench/bench.py [--sizes 10000,100000] [--runs 3] [--no-hugo]
                      [--authors-per-paper-ratio 5]
Needs: python3, /usr/bin/time, hugo (apt-get install hugo) unless --no-hugo,
and a release build (cargo build --release). Hugo is never run past 200,000
papers (at 1,000,000 it would need about 40 GB).
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
GEN = ROOT.parent / "shared" / "tools" / "gen-corpus"
VELLUM = ROOT / "target" / "release" / "vellum"


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


def corpus(papers, authors):
    out = WORK / f"corpus-{papers}"
    if not (out / "manifest.json").exists():
        shutil.rmtree(out, ignore_errors=True)
        print(f"generating {papers} papers, {authors} authors ...", flush=True)
        subprocess.run([sys.executable, str(GEN), "--papers", str(papers), "--authors", str(authors),
                        "--out", str(out), "--hugo"], check=True, stdout=subprocess.DEVNULL)
    return out


def vellum_site(corpus_dir, like_with_like):
    site = WORK / f"{corpus_dir.name}-vellum-{'lwl' if like_with_like else 'full'}"
    if not site.exists():
        site.mkdir(parents=True)
        os.symlink(corpus_dir / "listings", site / "seeds")
        shutil.copytree(ROOT / "themes", site / "themes")
    (site / "site.toml").write_text(
        'title = "Corpus"\nbase_url = "https://example.org/"\npaginate_by = 20\n'
        + ("feeds = false\nsearch = false\nexports = false\n" if like_with_like else ""))
    return site


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-hugo", action="store_true")
    ap.add_argument("--papers-per-author", type=int, default=5)
    a = ap.parse_args()
    if not VELLUM.exists():
        sys.exit("build Vellum first: cargo build --release")
    if not GEN.exists():
        sys.exit(f"gen-corpus not found at {GEN}")
    WORK.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(WORK)
    print(f"disk: {free.free / 2**30:.1f} GiB free under {WORK}")
    rows = []
    for size in [int(s) for s in a.sizes.split(",")]:
        cdir = corpus(size, max(1, size // a.papers_per_author))
        manifest = json.loads((cdir / "manifest.json").read_text())
        use_hugo = not a.no_hugo and size <= 200_000 and shutil.which("hugo")
        results = {"vellum-lwl": [], "vellum-full": [], "hugo": [], "floor": []}
        for run in range(a.runs):
            for kind in ["vellum-lwl", "hugo", "vellum-full"]:
                if kind == "hugo" and not use_hugo:
                    continue
                if kind == "hugo":
                    out = WORK / "out-hugo"
                    shutil.rmtree(out, ignore_errors=True)
                    r = timed(["hugo", "--quiet", "--source", str(cdir / "hugo"), "--destination", str(out)])
                else:
                    site = vellum_site(cdir, kind == "vellum-lwl")
                    out = WORK / f"out-{kind}"
                    shutil.rmtree(out, ignore_errors=True)
                    r = timed([str(VELLUM), "build", "--verbose", "--root", str(site), "--output-dir", str(out)])
                r["files"], r["bytes"] = tree_size(out)
                results[kind].append(r)
                print(f"  {size} run {run + 1} {kind}: {r['wall']:.2f} s wall, {r['cpu']:.2f} s cpu, "
                      f"{r['rss']:.0f} MB, {r['files']} files, {r['bytes'] / 2**20:.0f} MiB", flush=True)
                if kind == "vellum-lwl":
                    copy = WORK / "out-floor"
                    shutil.rmtree(copy, ignore_errors=True)
                    f = timed(["cp", "-r", str(out), str(copy)])
                    results["floor"].append(f)
                    shutil.rmtree(copy, ignore_errors=True)
        stages = results["vellum-full"][-1]["stderr"] if results["vellum-full"] else ""
        rows.append((size, manifest, results, stages))

    print("\nmedians of", a.runs, "runs")
    print(f"{'papers':>8} {'build':<12} {'wall s':>8} {'cpu s':>8} {'RSS MB':>8} {'files':>8} {'MiB':>7}")
    for size, manifest, results, stages in rows:
        for kind in ["vellum-lwl", "vellum-full", "hugo", "floor"]:
            runs = results[kind]
            if not runs:
                continue
            files = runs[0].get("files", results["vellum-lwl"][0]["files"])
            mib = runs[0].get("bytes", results["vellum-lwl"][0]["bytes"]) / 2**20
            print(f"{size:>8} {kind:<12} {median(runs, 'wall'):>8.2f} {median(runs, 'cpu'):>8.2f} "
                  f"{median(runs, 'rss'):>8.0f} {files:>8} {mib:>7.0f}")
        if results["hugo"]:
            lwl, hugo = results["vellum-lwl"], results["hugo"]
            print(f"{size:>8} Vellum/Hugo  wall {median(lwl, 'wall') / median(hugo, 'wall'):.3f}  "
                  f"cpu {median(lwl, 'cpu') / median(hugo, 'cpu'):.3f}  "
                  f"RSS {median(lwl, 'rss') / median(hugo, 'rss'):.3f}")
        print(f"{size:>8} stages of the last full Vellum build:\n" +
              "\n".join("           " + l for l in stages.splitlines() if re.match(r"^[a-z]+ +[0-9]", l)))
    if len(rows) >= 2:
        (s1, _, r1, _), (s2, _, r2, _) = rows[0], rows[-1]
        k = s2 / s1
        print(f"\nscaling {s1} -> {s2} papers ({k:.0f}x): "
              f"wall {median(r2['vellum-full'], 'wall') / median(r1['vellum-full'], 'wall'):.1f}x, "
              f"RSS {median(r2['vellum-full'], 'rss') / median(r1['vellum-full'], 'rss'):.1f}x")


if __name__ == "__main__":
    main()
