#!/usr/bin/env python3
"""Times `vellum enrich --arxiv-snapshot` and measures its peak memory:
a gen-corpus site of N listed papers against a synthetic snapshot of M
records in the format of arXiv's OAI metadata dump (one JSON object a
line, about 1.7 KB each as in the real file: 2.6 million lines, 4.5 GB).
Every listed paper has its record in the snapshot (its title, its owners
among the authors, its year); the other lines are filler records with
titles no paper has. Prints the snapshot's size, the wall time, the peak
resident set size and the run's summary line.

    python3 bench/enrich_bench.py [--papers 100000] [--records 2600000]
        [--vellum target/release/vellum] [--work DIR]
        [--build [--runs 3] [--out DIR]]

The snapshot is written once into the work folder (default bench/work)
and reused when its size is unchanged. The goal (issue 22): at most 60 s
and 1 GB on the 2-core machine at 100,000 papers and 2.6 million records.
With --build it then times `vellum build` of the site with the records
file and without it, alternating (with first, then without first),
--runs times each (default 3; the
2-core VM's timings vary by 15% from run to run), and prints the
medians of wall and CPU time and their ratio (goal: at most 10% more),
writing to --out (default: a folder in the work folder; give one on tmpfs,
such as /dev/shm/enrich-out, so the disk's write-back does not time the
second build).
"""

import argparse
import json
import pathlib
import random
import re
import shutil
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(arXiv|DBLP|bioRxiv)(\d{4})$")
OWNER = re.compile(r"^Publications and source records attributed to (.+)\.$")


def listed_papers(seeds: pathlib.Path):
    """(title, year, owner) of every record of every listing under seeds."""
    for path in sorted(seeds.rglob("*.txt")):
        lines = path.read_text().split("\n")
        owner = next((m.group(1) for l in lines if (m := OWNER.match(l))), None)
        for i, line in enumerate(lines):
            m = MARKER.match(line)
            if m and i + 2 < len(lines):
                yield lines[i + 2], int(m.group(2)), owner


def write_snapshot(path: pathlib.Path, papers, records: int):
    rng = random.Random(7)
    words = "graph neural model training inference quantum lattice bound proof sparse dense" \
        " stochastic optimal convex learning network protocol secure distributed edge cloud".split()
    abstract = " ".join(rng.choice(words) for _ in range(230))  # about 1.5 KB
    by_title = {}
    for title, year, owner in papers:
        entry = by_title.setdefault(title, [year, []])
        if owner and owner not in entry[1]:
            entry[1].append(owner)

    def line(ident, title, year, authors):
        return json.dumps({
            "id": ident, "submitter": authors[0], "authors": ", ".join(authors),
            "title": title, "comments": "12 pages", "journal-ref": None, "doi": None,
            "report-no": None, "categories": "cs.LG", "license": None, "abstract": abstract,
            "versions": [{"version": "v1", "created": f"Mon, 2 Apr {year} 19:18:42 GMT"}],
            "update_date": f"{year}-04-02",
            "authors_parsed": [[a.split()[-1], " ".join(a.split()[:-1]), ""] for a in authors],
        }, ensure_ascii=False) + "\n"

    with open(path, "w") as out:
        real = list(by_title.items())
        filler = records - len(real)
        every = max(1, records // max(1, len(real)))
        n = 0
        for i in range(records):
            if i % every == 0 and real:
                title, (year, owners) = real.pop()
                out.write(line(f"{2000 + n // 99999:04d}.{n % 99999:05d}", title, year, owners + ["Ada Coauthor"]))
            else:
                title = " ".join(rng.choice(words) for _ in range(9)) + f" {i}"
                out.write(line(f"{2000 + n // 99999:04d}.{n % 99999:05d}", title, 2020, ["Ben Filler"]))
            n += 1
        for title, (year, owners) in real:
            out.write(line(f"9999.{n:05d}", title, year, owners))
            n += 1
    return filler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--records", type=int, default=2_600_000)
    parser.add_argument("--vellum", default=str(ROOT / "target/release/vellum"))
    parser.add_argument("--work", default=str(ROOT / "bench/work"))
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="builds of each kind with --build")
    parser.add_argument("--out", help="where --build writes the site (default: in the work folder)")
    args = parser.parse_args()
    work = pathlib.Path(args.work) / f"enrich-{args.papers}"
    site = work / "site"
    if not (site / "seeds").is_dir():
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["python3", str(ROOT / "bench/gen-corpus"), "--papers", str(args.papers),
                        "--authors", str(max(1, args.papers // 5)), "--out", str(work / "corpus")],
                       check=True, stdout=subprocess.DEVNULL)
        site.mkdir(parents=True)
        shutil.copy(ROOT / "site.toml", site / "site.toml")
        shutil.copytree(ROOT / "themes", site / "themes")
        shutil.copytree(work / "corpus/listings", site / "seeds")
    snapshot = work / f"snapshot-{args.records}.jsonl"
    if not snapshot.is_file():
        started = time.time()
        write_snapshot(snapshot, listed_papers(site / "seeds"), args.records)
        print(f"wrote {snapshot.name} in {time.time() - started:.0f} s")
    (site / "records/arxiv.toml").unlink(missing_ok=True)
    started = time.time()
    run = subprocess.run(["/usr/bin/time", "-f", "%M", args.vellum, "enrich", "--root", str(site),
                          "--arxiv-snapshot", str(snapshot)], capture_output=True, text=True)
    wall = time.time() - started
    peak_kib = int(run.stderr.strip().split("\n")[-1])
    warnings = run.stderr.count(": warning: ")
    print(f"snapshot: {args.records} lines, {snapshot.stat().st_size / 1e9:.2f} GB; "
          f"papers: {args.papers}")
    print(f"enrich: {wall:.1f} s wall, peak RSS {peak_kib / 1024:.0f} MiB, "
          f"exit {run.returncode}, {warnings} warnings")
    lines = run.stdout.strip().split("\n")
    changes = {kind: sum(1 for l in lines if l.startswith(kind + ": ")) for kind in ("new", "changed", "key")}
    print(f"changes printed: {changes}")
    print(lines[-1])
    if args.build:
        records = site / "records"
        aside = work / "records-aside"
        out = pathlib.Path(args.out) if args.out else work / "out"
        runs = {"with records": [], "without": []}
        for run in range(args.runs):
            # ABBA: the first build of a pair starts colder, so the order
            # alternates from pair to pair.
            for label in list(runs)[:: 1 if run % 2 == 0 else -1]:
                if label == "without":
                    records.rename(aside)
                timed = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", args.vellum, "build", "-q",
                                        "--root", str(site), "--output-dir", str(out)],
                                       check=True, capture_output=True, text=True)
                wall, user, system, peak = timed.stderr.strip().split("\n")[-1].split()
                runs[label].append((float(wall), float(user) + float(system), int(peak) / 1024))
                print(f"build {label}: {float(wall):.1f} s wall, {runs[label][-1][1]:.1f} s CPU, "
                      f"{runs[label][-1][2]:.0f} MiB")
                shutil.rmtree(out)
                shutil.rmtree(out.parent / f".{out.name}.vellum-staging", ignore_errors=True)
                if label == "without":
                    aside.rename(records)
        median = {label: [statistics.median(r[i] for r in rs) for i in range(3)] for label, rs in runs.items()}
        for label, (wall, cpu, peak) in median.items():
            print(f"median {label}: {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MiB")
        print(f"with / without: wall {median['with records'][0] / median['without'][0]:.3f}, "
              f"CPU {median['with records'][1] / median['without'][1]:.3f}")

if __name__ == "__main__":
    main()
