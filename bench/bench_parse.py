"""Benchmark: phpBB topic-page extraction vs a bare lxml parse of the same bytes.

For every real viewtopic page with posts in the shared phpBB captures and in
``fixtures/html/phpbb``, prints the median time of ``parsers.phpbb.parse_topic_page`` and of
``lxml.html.fromstring`` (milliseconds) and their ratio. Target (issue 2): ratio <= 8 on a
10-post page. Exit status 1 when a 10-post page exceeds the target.

Run: ``python bench/bench_parse.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lxml.html  # noqa: E402

from parsers.errors import ParseError  # noqa: E402
from parsers.phpbb import parse_topic_page  # noqa: E402

TARGET_RATIO = 8.0
SOURCES = (ROOT.parent / "shared" / "fixtures" / "phpbb", ROOT / "fixtures" / "html" / "phpbb")


def _median_seconds(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _pages() -> list[Path]:
    seen: dict[str, Path] = {}
    for folder in SOURCES:
        if folder.is_dir():
            for path in sorted(folder.glob("viewtopic*.html")):
                seen.setdefault(path.name, path)
    return [seen[name] for name in sorted(seen)]


def main() -> int:
    """Print one line per page; return 1 when a 10-post page misses the target ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=50, help="timed runs per page (median)")
    args = parser.parse_args()

    pages = _pages()
    if not pages:
        print("no viewtopic pages found in", ", ".join(str(s) for s in SOURCES))
        return 1
    print(f"{'page':52} {'posts':>5} {'parse ms':>9} {'lxml ms':>8} {'ratio':>6}")
    worst = 0.0
    for path in pages:
        data = path.read_bytes()
        try:
            posts = len(parse_topic_page(data, str(path)).posts)
        except ParseError as exc:
            print(f"{path.name:52} {'-':>5} skipped: {exc.reason}")
            continue
        ours = _median_seconds(lambda d=data: parse_topic_page(d), args.repeat)  # type: ignore[misc]
        bare = _median_seconds(lambda d=data: lxml.html.fromstring(d), args.repeat)  # type: ignore[misc]
        ratio = ours / bare
        if posts >= 10:
            worst = max(worst, ratio)
        print(f"{path.name:52} {posts:5d} {ours * 1e3:9.3f} {bare * 1e3:8.3f} {ratio:6.2f}")
    verdict = "OK" if worst <= TARGET_RATIO else "TOO SLOW"
    print(f"worst ratio on 10-post pages: {worst:.2f} (target <= {TARGET_RATIO:g}): {verdict}")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
