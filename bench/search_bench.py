#!/usr/bin/env python3
"""Vellum's static search vs Pagefind: index build and bytes per query.

On a synthetic corpus made by bench/gen-corpus (cached in
bench/work/corpus-<N>/, shared with bench/bench.py), it measures:

Index build, RUNS times each, medians reported:
  - Vellum: `vellum build --verbose` of a site (bench/work/search-<N>/site:
    seeds -> the corpus listings, a fresh copy of themes/, site.toml with
    base_url https://example.org/, so the base path is /) into a fresh
    SITE/public. The index build time is the `search` stage line; the whole
    build's wall time is reported too.
  - Pagefind (npm package `pagefind`, the binary it installs, run directly):
    indexing the paper pages of that same built site (--glob
    "papers/**/index.html") into SITE/public/pagefind, timed from start to
    exit. By default Pagefind indexes what Vellum indexes, the paper page's
    <main> without its citation block (--root-selector main
    --exclude-selectors .cite); --pagefind-whole-page leaves Pagefind's
    defaults (the whole <body>, BibTeX/RIS/CSL-JSON included).
  - Index bytes and file count: Vellum's search/*.json and *.bin; the files of
    Pagefind's bundle holding data (pf_index, pf_fragment, pf_meta,
    pf_filter, pagefind-entry.json). Code (Vellum's search-ui.js and
    search-engine.js; Pagefind's JS, CSS and wasm) is reported separately.

Bytes per query, in headless Debian chromium (bench/search/measure.mjs,
driven by playwright-core), SITE/public served on 127.0.0.1 by a small Node
server that gzips .html/.css/.js/.json (Pagefind's .pf_* and wasm files are
pre-compressed and served as stored) and answers single byte-range requests
of the other files with 206 (Vellum's packs, .bin, are read so: a term's
postings, a phrase bucket, a metadata record). Each query runs once per engine, in a
fresh browser context (cold cache: what a new visitor pays):
  - Vellum: /search/?q=QUERY, until the status line shows the count (or
    "No results") and the first page of results (10) is shown.
  - Vellum + authors ("+authors"): the same, then a click on "Count
    authors" until the author facet is shown (on a large index the author
    facet is counted on demand), both steps counted.
  - Pagefind: /pagefind-test/?q=QUERY, a page generated from
    bench/search/pagefind-test.html that imports /pagefind/pagefind.js,
    awaits pagefind.search(QUERY) and loads the data of the first 10
    results, as Pagefind's UI does for its first page.
  Counted: every request but the HTML page and its stylesheet, that is the
  search code (JS modules, Pagefind's worker and wasm) and the index files.
  "Transferred" is the encoded (gzip) body plus response headers; "decoded"
  the body after HTTP decoding (Pagefind's .pf_* files stay gzipped then:
  Pagefind decompresses them itself). Time to results (loopback, one run)
  is shown for information only.

Usage: bench/search_bench.py [--papers 100000] [--authors 20000] [--runs 3]
                             [--queries "distributed training,zoe,graph neural networks"]
                             [--pagefind-whole-page]
Needs: a release build (target/release/vellum), node and npm, Debian's
chromium (apt-get install -y chromium), and npm packages of bench/search
(installed with `npm ci` there on first use). Disk: about 100 KB per paper
for one run, 50 KB more per further run (10 GB at 100,000 papers and one
run, 20 GB with three: earlier runs' outputs are only deleted at the end,
outside the timed steps); checked first. The last run's site stays in
bench/work/search-<N>/site/public; raw results are saved in
bench/work/search-<N>/results.json.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import GEN, ROOT, VELLUM, WORK, corpus, timed, tree_size  # noqa: E402

HELPERS = ROOT / "bench" / "search"
THEME_STATIC = ROOT / "themes" / "default" / "static"
QUERIES = "distributed training,zoe,graph neural networks"
# vellum-authors: the same search page, then its "Count authors" button (on a
# large index the author facet is counted on demand), counting both steps.
ENGINES = ["vellum", "vellum-authors", "pagefind"]
DISK_PER_PAPER = 100_000  # bytes for one run: corpus ~10 KB, site ~45 KB, Pagefind ~5 KB, margin
PAGEFIND_DATA = re.compile(r"\.pf_(index|fragment|meta|filter)$|^pagefind-entry\.json$")


def kib(n):
    return f"{n / 1024:,.1f} KiB" if n < 10 * 2**20 else f"{n / 2**20:,.1f} MiB"


def check_tools():
    if not VELLUM.exists():
        sys.exit(f"{VELLUM} is missing: build it with cargo build --release")
    if not GEN.exists():
        sys.exit(f"gen-corpus not found at {GEN}")
    if not shutil.which("node"):
        sys.exit("node is missing (apt-get install -y nodejs npm)")
    if not Path("/usr/bin/chromium").exists():
        sys.exit("/usr/bin/chromium is missing: apt-get install -y chromium")
    if not (HELPERS / "node_modules" / "playwright-core").exists():
        print("installing bench/search npm packages (npm ci) ...", flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HELPERS, check=True)


def pagefind_binary():
    found = sorted(HELPERS.glob("node_modules/@pagefind/*/bin/pagefind_extended"))
    if not found:
        sys.exit("Pagefind's binary is missing: run npm ci in bench/search")
    return found[0]


def check_disk(papers, runs):
    """Corpus ~10 KB a paper (unless cached), each run's site ~45 KB and
    Pagefind bundle ~5 KB (kept until the end), plus margin."""
    cached = (WORK / f"corpus-{papers}" / "manifest.json").exists()
    need = papers * (DISK_PER_PAPER + (runs - 1) * 50_000 - (10_000 if cached else 0)) + 2**29
    free = shutil.disk_usage(WORK).free
    print(f"disk: needs about {need / 2**30:.1f} GiB for {papers} papers"
          f"{' (corpus cached)' if cached else ''}, {free / 2**30:.1f} GiB free under {WORK}")
    if free < need:
        sys.exit("not enough free disk space")


def make_site(corpus_dir, papers):
    """The site directory, with a fresh copy of themes/ (search JS changes often)."""
    site = WORK / f"search-{papers}" / "site"
    site.mkdir(parents=True, exist_ok=True)
    if not (site / "seeds").is_symlink():
        (site / "seeds").symlink_to(corpus_dir / "listings")
    shutil.rmtree(site / "themes", ignore_errors=True)
    shutil.copytree(ROOT / "themes", site / "themes")
    (site / "site.toml").write_text('title = "Corpus"\nbase_url = "https://example.org/"\n')
    return site


def stage_ms(output, name):
    m = re.search(rf"^{name}\s+([\d.]+) ms", output, re.M)
    return float(m.group(1)) if m else None


def set_aside(path, site):
    """Moves a previous output out of the way (a rename, instant), so the next
    build starts from nothing; deleting 100,000 papers' pages takes minutes
    on this disk, so the old trees are deleted at the end, outside every
    timed step (see remove_set_aside)."""
    if path.exists():
        trash = site.parent / "set-aside"
        trash.mkdir(exist_ok=True)
        path.rename(trash / f"{path.name}-{time.time_ns()}")


def remove_set_aside(site):
    trash = site.parent / "set-aside"
    if trash.exists():
        started = time.time()
        print("deleting previous outputs set aside ...", flush=True)
        subprocess.run(["rm", "-rf", "--", str(trash)], check=True)  # faster than shutil.rmtree here
        print(f"  deleted in {time.time() - started:.0f} s")


def build_vellum(site):
    public = site / "public"
    set_aside(public, site)
    r = timed([str(VELLUM), "build", "--verbose", "--root", str(site)])
    output = r["stdout"] + r["stderr"]
    r["search_s"] = stage_ms(output, "search") / 1000
    r["stages"] = [l for l in output.splitlines() if re.match(r"^[a-z]+ +[0-9.]+ ms", l)]
    data = sorted(p for p in (public / "search").iterdir() if p.suffix in (".json", ".bin"))
    r["index_files"], r["index_bytes"] = len(data), sum(p.stat().st_size for p in data)
    r["code_bytes"] = sum((public / n).stat().st_size for n in ["search-ui.js", "search-engine.js"])
    r["site_files"], r["site_bytes"] = tree_size(public)
    return r


def run_pagefind(site, whole_page):
    public = site / "public"
    set_aside(public / "pagefind", site)
    cmd = [str(pagefind_binary()), "--site", str(public), "--glob", "papers/**/index.html",
           "--output-subdir", "pagefind"]
    if not whole_page:
        cmd += ["--root-selector", "main", "--exclude-selectors", ".cite"]
    r = timed(cmd)
    m = re.search(r"Indexed (\d+) pages", r["stdout"])
    r["pages"] = int(m.group(1)) if m else None
    files = [p for p in (public / "pagefind").rglob("*") if p.is_file()]
    data = [p for p in files if PAGEFIND_DATA.search(p.name)]
    r["index_files"], r["index_bytes"] = len(data), sum(p.stat().st_size for p in data)
    r["code_files"] = len(files) - len(data)
    r["code_bytes"] = sum(p.stat().st_size for p in files) - r["index_bytes"]
    return r


def serve_current_theme_js(public):
    """Makes sure the built site serves the theme's current search JS."""
    for name in ["search-ui.js", "search-engine.js"]:
        if (THEME_STATIC / name).read_bytes() != (public / name).read_bytes():
            print(f"note: {name} changed in themes/ since the build; serving the current one")
            shutil.copyfile(THEME_STATIC / name, public / name)


def measure(public, engine, queries):
    out = subprocess.run(["node", str(HELPERS / "measure.mjs"), str(public), engine, *queries],
                         cwd=HELPERS, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"measure.mjs {engine} failed:\n{out.stderr[-3000:]}")
    results = [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
    for r in results:
        problems = r["errors"] + r["failed"] + ([r["outcome"]["error"]] if r["outcome"]["error"] else [])
        if problems:
            print(f"warning: {engine} {r['query']!r}: {'; '.join(problems)}")
        unexpected = [m for m in r["cdpMismatch"] if "worker" not in m]
        if unexpected:
            print(f"note: {engine} {r['query']!r}: CDP and server disagree: {'; '.join(unexpected)}")
    return results


def kind(engine, path):
    """What a counted file is, for the per-kind breakdown."""
    name = path.rsplit("/", 1)[-1]
    if engine.startswith("vellum"):
        if name.endswith(".js"):
            return "code"
        return {"index.json": "entry", "t": "terms", "p": "postings", "b": "phrases",
                "c": "categories", "f": "author facet", "l": "author lists", "m": "metadata",
                "a": "author names"}.get(name if name == "index.json" else name.split("-")[0], "other")
    if name.endswith(".js"):
        return "code"
    if name.startswith("wasm."):
        return "wasm"
    if name == "pagefind-entry.json":
        return "entry"
    m = re.search(r"\.pf_(\w+)$", name)
    return {"index": "index", "fragment": "fragments", "meta": "meta", "filter": "filters"}.get(
        m.group(1) if m else "", "other")


def breakdown(engine, result):
    kinds = {}
    for f in result["files"]:
        if f["counted"]:
            n, b = kinds.get(kind(engine, f["path"]), (0, 0))
            kinds[kind(engine, f["path"])] = (n + 1, b + f["body"] + f["headers"])
    return ", ".join(f"{k} {n}×={kib(b)}" for k, (n, b) in sorted(kinds.items(), key=lambda kv: -kv[1][1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=100_000)
    ap.add_argument("--authors", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", default=QUERIES, help="comma-separated")
    ap.add_argument("--pagefind-whole-page", action="store_true",
                    help="let Pagefind index whole pages (its default) instead of <main> minus .cite")
    a = ap.parse_args()
    queries = [q.strip() for q in a.queries.split(",") if q.strip()]

    check_tools()
    WORK.mkdir(parents=True, exist_ok=True)
    check_disk(a.papers, a.runs)
    built = time.strftime("%Y-%m-%d %H:%M", time.localtime(VELLUM.stat().st_mtime))
    print(f"vellum: {VELLUM} (built {built}); load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs (timings are only as quiet as the machine)", flush=True)
    cdir = corpus(a.papers, a.authors)
    manifest = json.loads((cdir / "manifest.json").read_text())
    site = make_site(cdir, a.papers)
    public = site / "public"

    vellum = []
    for run in range(a.runs):
        r = build_vellum(site)
        vellum.append(r)
        print(f"  run {run + 1} vellum: build {r['wall']:.2f} s wall, search stage {r['search_s']:.2f} s, "
              f"{r['rss']:.0f} MB RSS, index {r['index_files']} files {kib(r['index_bytes'])}", flush=True)
    pagefind = []
    for run in range(a.runs):
        r = run_pagefind(site, a.pagefind_whole_page)
        pagefind.append(r)
        print(f"  run {run + 1} pagefind: {r['wall']:.2f} s wall, {r['cpu']:.2f} s cpu, {r['rss']:.0f} MB RSS, "
              f"{r['pages']} pages, index {r['index_files']} files {kib(r['index_bytes'])}", flush=True)

    test_page = public / "pagefind-test" / "index.html"
    test_page.parent.mkdir(exist_ok=True)
    shutil.copyfile(HELPERS / "pagefind-test.html", test_page)
    serve_current_theme_js(public)
    print(f"measuring queries in chromium ... (load average {os.getloadavg()[0]:.2f})", flush=True)
    per_query = {engine: measure(public, engine, queries) for engine in ENGINES}

    (WORK / f"search-{a.papers}" / "results.json").write_text(json.dumps(
        {"manifest": {k: v for k, v in manifest.items() if k != "sample"},
         "vellum_builds": [{k: v for k, v in r.items() if k not in ("stdout", "stderr")} for r in vellum],
         "pagefind_builds": [{k: v for k, v in r.items() if k not in ("stdout", "stderr")} for r in pagefind],
         "queries": per_query}, indent=1))

    med = lambda runs, key: statistics.median(r[key] for r in runs)
    v, p = vellum[-1], pagefind[-1]
    scope = "whole <body>" if a.pagefind_whole_page else "<main> minus .cite"
    print(f"\ncorpus: {manifest['papers']} papers, {manifest['authors']} authors ({cdir.relative_to(ROOT)}); "
          f"Pagefind indexed {p['pages']} paper pages ({scope}); medians of {a.runs} runs")
    print(f"{'':34}{'Vellum':>16}{'Pagefind':>16}{'V/P':>8}")
    rows = [
        ("index build time (s)", med(vellum, "search_s"), med(pagefind, "wall"), "{:.2f}"),
        ("  Vellum: whole build, wall (s)", med(vellum, "wall"), None, "{:.2f}"),
        ("  Pagefind: CPU time (s)", None, med(pagefind, "cpu"), "{:.2f}"),
        ("index bytes (data files)", v["index_bytes"], p["index_bytes"], "{:,}"),
        ("index files", v["index_files"], p["index_files"], "{:,}"),
        ("code bytes (JS, CSS, wasm on disk)", v["code_bytes"], p["code_bytes"], "{:,}"),
    ]
    for label, x, y, fmt in rows:
        fx = fmt.format(x) if x is not None else "-"
        fy = fmt.format(y) if y is not None else "-"
        ratio = f"{x / y:.3f}" if x is not None and y else ""
        print(f"{label:34}{fx:>16}{fy:>16}{ratio:>8}")

    print(f"\nper query, cold cache, first page of results; counted: search code + index files "
          f"(not the HTML page and its CSS)")
    print(f"{'query':24}{'engine':10}{'requests':>9}{'transferred':>15}{'decoded':>15}{'results':>9}{'ms':>7}")
    for i, q in enumerate(queries):
        rv, rp = per_query["vellum"][i], per_query["pagefind"][i]
        ra = per_query["vellum-authors"][i]
        for label, r in [("Vellum", rv), ("+authors", ra), ("Pagefind", rp)]:
            print(f"{q if label == 'Vellum' else '':24}{label:10}{r['requests']:>9}{r['transferred']:>15,}"
                  f"{r['decoded']:>15,}{r['outcome']['total']:>9}{r['ms']:>7}")
        print(f"{'':24}{'V/P':10}{rv['requests'] / rp['requests']:>9.2f}"
              f"{rv['transferred'] / rp['transferred']:>15.3f}{rv['decoded'] / rp['decoded']:>15.3f}")
        print(f"{'':24}{'+a/P':10}{ra['requests'] / rp['requests']:>9.2f}"
              f"{ra['transferred'] / rp['transferred']:>15.3f}{ra['decoded'] / rp['decoded']:>15.3f}")
    print("\ntransferred bytes by kind of file (count × = bytes):")
    for i, q in enumerate(queries):
        for engine in ENGINES:
            print(f"  {q!r:24} {engine:15} {breakdown(engine, per_query[engine][i])}")
    print("\nstages of the last Vellum build:\n" + "\n".join("  " + l for l in v["stages"]))
    remove_set_aside(site)


if __name__ == "__main__":
    main()
