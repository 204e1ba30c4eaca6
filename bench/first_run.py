#!/usr/bin/env python3
"""Measures the README's two commands as a newcomer runs them: on a fresh
clone of a commit, from a clean target directory, one after the other.

Usage: python3 bench/first_run.py [--commit HEAD] [--keep DIR]

The two commands are read from the README of that commit (the first
`sh` block under "## Two commands"), so an older commit is measured with
its own commands. Crates are fetched first (`cargo fetch`, not timed):
the figures are compiling and running, not downloading. Prints, per
command, the wall and CPU time, the number of crates compiled, and the
sum.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands(readme):
    text = readme[readme.index("## Two commands"):]
    block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def timed(command, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    compiled = len(re.findall(r"^\s*Compiling ", p.stderr, re.M))
    return p.returncode, wall, cpu, compiled, p.stdout + p.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--keep", type=Path, help="clone into DIR and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="vellum-first-run-"))
    try:
        if work.exists():
            shutil.rmtree(work)
        subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
        subprocess.run(["git", "checkout", "-q", args.commit], cwd=work, check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=work,
                                capture_output=True, text=True).stdout.strip()
        env = dict(os.environ, CARGO_TARGET_DIR=str(work / "target"))
        env.pop("CI", None)
        subprocess.run(["cargo", "fetch", "--locked"], cwd=work, env=env, check=True,
                       capture_output=True)
        commands = readme_commands((work / "README.md").read_text())
        print(f"commit {commit}, {os.cpu_count()} cores, clean target directory")
        total_wall = total_cpu = 0.0
        for command in commands:
            code, wall, cpu, compiled, output = timed(command, work, env)
            total_wall += wall
            total_cpu += cpu
            print(f"  {command:40} {wall / 60:5.1f} min wall {cpu / 60:6.1f} min CPU "
                  f"{compiled:4} crates compiled  exit {code}")
            if code != 0:
                print(output[-3000:])
                sys.exit(1)
            summary = [l for l in output.splitlines() if l.startswith("test result")]
            for line in summary:
                print(f"      {line}")
        print(f"  {'both':40} {total_wall / 60:5.1f} min wall {total_cpu / 60:6.1f} min CPU")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
