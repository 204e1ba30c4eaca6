#!/usr/bin/env python3
"""Shows that two vellum binaries behave the same: byte-identical output
trees, the same messages and the same exit codes.

Usage: python3 bench/same_output.py --old OLD_BINARY [--new NEW_BINARY]
                                     [--old-themes DIR]
                                     [--papers 10000] [--authors 2000]

For an A/B of two commits, build the old one in a worktree:
  git worktree add /tmp/old <commit> && (cd /tmp/old && cargo build --release)
  python3 bench/same_output.py --old /tmp/old/target/release/vellum

With --old-themes, the old binary builds each site with the themes of DIR
(a `themes/` folder) and the new one with this checkout's: for a change
that moves work between the theme and the code, meant to keep the output
(`git archive OLD themes | tar -x -C /tmp/old` gives /tmp/old/themes;
the worktree above has its own themes/ too).

Each case is a site root built by both binaries in turn at the same path
(so the messages, which name paths, compare as they are): `build` into
`public/`, then `check` and `check --strict`. The cases:
  - the bundled site, at its own base URL and under a sub-path;
  - each listing fixture of tests/fixtures/listings (valid and errors), as
    the one listing of a site with the default theme;
  - BibTeX fixtures beside a listing (papers with complete author lists);
  - sites broken on purpose: a bad site.toml key, a missing theme, a
    template syntax error, bad front matter, an alias taking a generated
    page's path, a static file clashing with a page;
  - a synthetic corpus from bench/gen-corpus (--papers, --authors).
Prints one line per case and exits 1 when any differs.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "listings"
OLD_THEMES = None  # --old-themes


def tree(dir_):
    """Relative path -> bytes of every file under dir_."""
    out = {}
    if not dir_.is_dir():
        return out
    for base, _, files in os.walk(dir_):
        for name in files:
            path = Path(base) / name
            out[str(path.relative_to(dir_))] = path.read_bytes()
    return out


def run(binary, args):
    p = subprocess.run([str(binary)] + args, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def outcome(binary, root, extra, themes=None):
    """What one binary does with the site at root (its themes replaced by
    a copy of `themes` when given): each command's exit code, stdout and
    stderr, and the output tree `build` wrote."""
    shutil.rmtree(root / "public", ignore_errors=True)
    if themes is not None and (root / "themes").is_dir():
        shutil.rmtree(root / "themes")
        shutil.copytree(themes, root / "themes")
    results = []
    for command in (["build"] + extra, ["check"] + extra, ["check", "--strict"] + extra):
        results.append(run(binary, command[:1] + ["--root", str(root)] + command[1:]))
    return results, tree(root / "public")


def first_difference(x, y):
    """The first line where two outputs (or exit codes) differ, both sides."""
    if isinstance(x, int):
        return f"{x} vs {y}"
    old, new = x.splitlines(), y.splitlines()
    for i, (a, b) in enumerate(zip(old + [b""] * len(new), new + [b""] * len(old))):
        if a != b:
            return f"line {i + 1}: {a!r:.160} vs {b!r:.160}"
    return "same lines, other line ends"


def compare(name, old, new, root, extra=()):
    extra = list(extra)
    (old_runs, old_tree) = outcome(old, root, extra, OLD_THEMES)
    (new_runs, new_tree) = outcome(new, root, extra, ROOT / "themes" if OLD_THEMES else None)
    problems = []
    for (label, a, b) in zip(("build", "check", "check --strict"), old_runs, new_runs):
        for (what, x, y) in zip(("exit code", "stdout", "stderr"), a, b):
            if x != y:
                problems.append(f"{label} {what}: {first_difference(x, y)}")
    if old_tree.keys() != new_tree.keys():
        only_old = sorted(old_tree.keys() - new_tree.keys())[:5]
        only_new = sorted(new_tree.keys() - old_tree.keys())[:5]
        problems.append(f"files only in old {only_old}, only in new {only_new}")
    differing = sorted(f for f in old_tree.keys() & new_tree.keys() if old_tree[f] != new_tree[f])
    if differing:
        problems.append(f"{len(differing)} files differ, e.g. {differing[:5]}")
    codes = "/".join(str(r[0]) for r in old_runs)
    status = "same" if not problems else "DIFFERENT"
    print(f"{status:9} {name:48} exit {codes:7} {len(old_tree):7} files")
    for p in problems:
        print(f"          {p}")
    return not problems


def site(dir_, seeds=(), config="", files=()):
    """A site at dir_: the bundled theme, site.toml with `config`, listings
    copied from `seeds` (files or directories), extra (path, text) files."""
    shutil.rmtree(dir_, ignore_errors=True)
    dir_.mkdir(parents=True)
    shutil.copytree(ROOT / "themes", dir_ / "themes")
    (dir_ / "site.toml").write_text(f'title = "Test"\nbase_url = "https://example.org/"\n{config}')
    (dir_ / "seeds").mkdir()
    for s in seeds:
        s = Path(s)
        if s.is_dir():
            shutil.copytree(s, dir_ / "seeds" / s.name)
        else:
            shutil.copy(s, dir_ / "seeds" / s.name)
    for (path, text) in files:
        target = dir_ / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return dir_


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", required=True, type=Path)
    parser.add_argument("--new", type=Path, default=ROOT / "target" / "release" / "vellum")
    parser.add_argument("--old-themes", type=Path)
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--authors", type=int, default=2000)
    args = parser.parse_args()
    global OLD_THEMES
    OLD_THEMES = args.old_themes
    if OLD_THEMES is not None and not (OLD_THEMES / "default" / "templates").is_dir():
        sys.exit(f"no themes folder at {OLD_THEMES} (it holds default/templates/)")
    for b in (args.old, args.new):
        if not b.is_file():
            sys.exit(f"no binary at {b}")
    work = Path(tempfile.mkdtemp(prefix="vellum-same-"))
    ok = True
    try:
        bundled = work / "bundled"
        bundled.mkdir()
        for d in ("seeds", "content", "themes"):
            shutil.copytree(ROOT / d, bundled / d)
        shutil.copy(ROOT / "site.toml", bundled / "site.toml")
        ok &= compare("bundled site", args.old, args.new, bundled)
        ok &= compare("bundled site under a sub-path", args.old, args.new, bundled,
                      ["--base-url", "https://lab.github.io/papers/"])

        one = FIXTURES / "valid" / "multi-paragraph" / "olumide.txt"
        for kind in ("valid", "errors"):
            for fixture in sorted((FIXTURES / kind).iterdir()):
                root = site(work / f"{kind}-{fixture.stem}", [fixture])
                ok &= compare(f"fixture {kind}/{fixture.name}", args.old, args.new, root)

        bib = ROOT / "tests" / "fixtures" / "bibtex"
        root = site(work / "bibtex", [one, bib / "pybtex" / "xampl.bib", bib / "biblatex" / "gral.bib",
                                      bib / "biblatex" / "polaritons.bib", bib / "pybtex" / "IEEEtran.bib"])
        ok &= compare("BibTeX files beside a listing (complete author lists)", args.old, args.new, root)

        broken = {
            "unknown site.toml key": dict(config="paginate_by = 5\ntitel = \"x\"\n"),
            "bad site.toml value": dict(config="paginate_by = \"ten\"\n"),
            "missing theme": dict(config="theme = \"nope\"\n"),
            "template syntax error": dict(files=[("templates/paper.html", "{% if %}\n")]),
            "template unknown variable": dict(files=[("templates/paper.html", "{{ config.title }}\n")]),
            "bad front matter": dict(files=[("content/about.md", "+++\ntitle = 3\n+++\nhi\n")]),
            "unclosed front matter": dict(files=[("content/about.md", "+++\ntitle = \"x\"\n")]),
            "alias taking a page's path": dict(files=[(
                "content/authors/olumide-adeyemi.md", "+++\naliases = [\"years/\"]\n+++\n")]),
            "override naming no paper": dict(files=[("content/papers/x.md", "+++\n+++\n")]),
            "content page clashing": dict(files=[("content/authors/_index.md", "+++\n+++\nx\n")]),
            "static file clashing": dict(files=[("static/sitemap.xml", "x")]),
            "broken link in content": dict(files=[("content/about.md", "[x](/nowhere/)\n")]),
            "shortcode with an unknown author": dict(files=[(
                "content/list.md", "{{ papers(author=\"nobody\") }}\n")]),
        }
        for name, spec in broken.items():
            root = site(work / name.replace(" ", "-").replace("'", ""), [one], **spec)
            ok &= compare(name, args.old, args.new, root)

        corpus = work / "corpus"
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen-corpus"), "--papers",
                        str(args.papers), "--authors", str(args.authors), "--out", str(corpus)],
                       check=True, capture_output=True)
        root = site(work / "generated", [corpus / "listings"])
        ok &= compare(f"gen-corpus {args.papers} papers, {args.authors} authors",
                      args.old, args.new, root)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("all the same" if ok else "DIFFERENCES FOUND")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
