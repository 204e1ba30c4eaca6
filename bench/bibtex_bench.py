#!/usr/bin/env python3
"""Times `vellum build` of one corpus given as listings and as one BibTeX
file: a gen-corpus site of N papers, and a site whose seeds/ holds only
`corpus.bib`, one entry per paper (its title, year, abstract and primary
category, its listing owners as `author`, a journal, a key and a DOI):
the same papers, authors and author pages (`author_pages = "all"`, as
no listing names them).
Prints the .bib's size, each build's wall time and peak resident set size
(alternating, twice each) and the builds' summary lines.

    python3 bench/bibtex_bench.py [--papers 100000] [--vellum target/release/vellum]
        [--work DIR] [--fresh]

The goal (issue 22): the .bib builds in about the time of the listings.
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(arXiv|DBLP|bioRxiv)(\d{4})$")
OWNER = re.compile(r"^Publications and source records attributed to (.+)\.$")
CATEGORY = re.compile(r"^[a-z-]+(\.[A-Za-z-]+)?( [a-z-]+(\.[A-Za-z-]+)?)*↗?$")


def papers(seeds: pathlib.Path):
    """title → [year, abstract, primary category, owners] over every listing."""
    found = {}
    for path in sorted(seeds.rglob("*.txt")):
        lines = path.read_text().split("\n")
        owner = next((m.group(1) for l in lines if (m := OWNER.match(l))), None)
        for i, line in enumerate(lines):
            m = MARKER.match(line)
            if not m or i + 2 >= len(lines):
                continue
            title = lines[i + 2]
            # The abstract: the blocks up to the category line.
            block, j = [], i + 4
            while j < len(lines) and not (CATEGORY.match(lines[j]) and lines[j]):
                block.append(lines[j])
                j += 1
            category = lines[j].split()[0].rstrip("↗") if j < len(lines) else "cs.LG"
            entry = found.setdefault(title, [int(m.group(2)), " ".join(l for l in block if l), category, []])
            if owner and owner not in entry[3]:
                entry[3].append(owner)
    return found


def braced(text: str) -> str:
    """`text` with unbalanced braces dropped, safe inside `{…}`."""
    depth, out = 0, []
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                continue
            depth -= 1
        out.append(c)
    return "".join(out) + "}" * depth


def write_bib(path: pathlib.Path, found) -> None:
    with open(path, "w") as out:
        for n, (title, (year, abstract, category, owners)) in enumerate(found.items()):
            authors = owners
            out.write(
                f"@article{{paper{n},\n"
                f"  author = {{{' and '.join(authors)}}},\n"
                f"  title = {{{braced(title)}}},\n"
                f"  journal = {{Journal of Benchmarks}},\n"
                f"  year = {year},\n"
                f"  doi = {{10.5555/bench.{n}}},\n"
                f"  primaryClass = {{{category}}},\n"
                f"  abstract = {{{braced(abstract)}}},\n"
                f"}}\n\n"
            )


def build(vellum: str, site: pathlib.Path, out: pathlib.Path):
    started = time.time()
    run = subprocess.run(["/usr/bin/time", "-f", "%M", vellum, "build", "--root", str(site),
                          "--output-dir", str(out)], capture_output=True, text=True)
    wall = time.time() - started
    peak = int(run.stderr.strip().split("\n")[-1]) / 1024
    summary = next((l for l in run.stdout.split("\n") + run.stderr.split("\n") if l.startswith("Built")), "?")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out.parent / f".{out.name}.vellum-staging", ignore_errors=True)
    return wall, peak, run.returncode, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--vellum", default=str(ROOT / "target/release/vellum"))
    parser.add_argument("--work", default=str(ROOT / "bench/work"))
    parser.add_argument("--fresh", action="store_true", help="make the corpus and the .bib again")
    parser.add_argument("--out", help="the output folder (default WORK/out); on a tmpfs such as "
                        "/dev/shm/out, the disk's cost of making files where many were just removed "
                        "stays out of the figures")
    args = parser.parse_args()
    work = pathlib.Path(args.work) / f"bibtex-{args.papers}"
    listed, bib = work / "listings", work / "bibtex"
    if not (bib / "seeds/corpus.bib").is_file() or args.fresh:
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["python3", str(ROOT / "bench/gen-corpus"), "--papers", str(args.papers),
                        "--authors", str(max(1, args.papers // 5)), "--out", str(work / "corpus")],
                       check=True, stdout=subprocess.DEVNULL)
        for site in (listed, bib):
            site.mkdir(parents=True)
            text = (ROOT / "site.toml").read_text()
            # The .bib's authors are the listings' owners: every one a page.
            pages = 'author_pages = "all"\n' if site == bib else ""
            (site / "site.toml").write_text(pages + text)
            shutil.copytree(ROOT / "themes", site / "themes")
        shutil.copytree(work / "corpus/listings", listed / "seeds")
        (bib / "seeds").mkdir()
        write_bib(bib / "seeds/corpus.bib", papers(listed / "seeds"))
    size = (bib / "seeds/corpus.bib").stat().st_size
    print(f"papers: {args.papers}; corpus.bib: {size / 1e6:.1f} MB")
    for _ in range(2):
        for label, site in (("listings", listed), ("bibtex", bib)):
            out = pathlib.Path(args.out) if args.out else work / "out"
            wall, peak, code, summary = build(args.vellum, site, out)
            print(f"build {label}: {wall:.1f} s wall, peak RSS {peak:.0f} MiB, exit {code}: {summary}")


if __name__ == "__main__":
    main()
