#!/usr/bin/env python3
"""Makes the screenshots of docs/screenshots/: every page kind of two sites
at 1280x800 and 390x844, as tests/browser/screenshots.mjs takes them.

- `bundled-*`: the bundled site (no records: every paper offers "Find on
  arXiv"), light, and its author and paper pages dark;
- `records-*`: a site of the 105 real arXiv records of
  tests/fixtures/arxiv-api/ (matched ids, long author lists, math), each
  record listed under its first author, matched with `vellum enrich
  --arxiv-snapshot` against the fixture snapshot; its paper pages are the
  one of 34 authors (`records-paper-*`) and one with much math
  (`records-paper-math-*`).

    cargo build --release && python3 docs/screenshots/make.py

Needs node and the npm packages of tests/browser/ (`npm ci` there) and
Debian's chromium.
"""

import json
import pathlib
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
VELLUM = ROOT / "target/release/vellum"
OUT = ROOT / "docs/screenshots"
SHOOT = ROOT / "tests/browser/screenshots.mjs"


def one_line(text: str) -> str:
    return " ".join("".join(c for c in text if c.isprintable() or c == " ").split())


def records_site(site: pathlib.Path):
    """A site listing every real record of the fixture snapshot under its first author."""
    snapshot = ROOT / "tests/fixtures/arxiv-api/snapshot.jsonl"
    by_owner = {}
    for line in snapshot.read_text().splitlines():
        record = json.loads(line)
        if record["id"].startswith("decoy/"):
            continue
        family, given = record["authors_parsed"][0][0], record["authors_parsed"][0][1]
        owner = one_line(f"{given} {family}")
        year = record["versions"][0]["created"].split()[3]
        by_owner.setdefault(owner, []).append(
            (one_line(record["title"]), year, one_line(record["abstract"]), record["categories"].split()[0]))
    (site / "seeds").mkdir(parents=True)
    for n, (owner, papers) in enumerate(sorted(by_owner.items())):
        text = f"{owner}\n\nPublications and source records attributed to {owner}.\n\n" \
               f"At least {len(papers)} records · Page 1\n\nLinked to original sources\n"
        # Newest first, as a listing page shows them.
        for title, year, abstract, category in sorted(papers, key=lambda p: -int(p[1])):
            text += f"\narXiv{year}\n\n{title}\n\n{abstract}\n\n{category}\n"
        (site / "seeds" / f"{n:03d}.txt").write_text(text)
    (site / "site.toml").write_text(
        'title = "Software Testing on arXiv"\n'
        'description = "Papers from arXiv\'s answer to a search for testing."\n'
        'base_url = "https://example.org/"\n')
    shutil.copytree(ROOT / "themes", site / "themes")
    (site / "content").mkdir()
    (site / "content/about.md").write_text(
        '+++\ntitle = "About"\n+++\nThis site lists the 105 records of arXiv\'s answer to a search for '
        '*testing*, each under its first author, matched to its record with `vellum enrich`.\n')
    subprocess.run([VELLUM, "enrich", "--root", site, "--arxiv-snapshot", snapshot], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([VELLUM, "build", "--root", site, "-q"], check=True, stderr=subprocess.DEVNULL)


def main():
    for old in OUT.glob("*.png"):
        old.unlink()
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        bundled = work / "bundled"
        subprocess.run([VELLUM, "build", "--root", ROOT, "-q", "--output-dir", bundled], check=True,
                       stderr=subprocess.DEVNULL)
        subprocess.run(["node", SHOOT, bundled, OUT, "bundled-"], check=True)
        dark = work / "dark"
        subprocess.run(["node", SHOOT, bundled, dark, "bundled-", "--dark"], check=True)
        for kind in ["author-desktop", "paper-phone"]:
            shutil.copy(dark / f"bundled-{kind}-dark.png", OUT)
        records_site(work / "records")
        subprocess.run(["node", SHOOT, work / "records/public", OUT, "records-",
                        "author=/authors/anurag-dwarakanath/",
                        "paper=/papers/proceedings-of-workshop-aew10-concepts-in-information-theory-and-communications/",
                        "paper-math=/papers/the-price-of-tolerance-in-distribution-testing/"], check=True)


if __name__ == "__main__":
    main()
