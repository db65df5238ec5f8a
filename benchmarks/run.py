"""advisor's speed, measured against rapidfuzz's own floor in one run (issue 5). Run by hand:

    python benchmarks/run.py            # bundled knowledge + generated 1,000 / 10,000 / 100,000 entries
    python benchmarks/run.py --quick    # fewer runs, generated folders up to 10,000 entries
    python benchmarks/run.py --sizes 1000,10000 --runs 11

Everything compared side by side is measured in the same run, alternately where it is a race
between two processes: the start-up of `advisor ask` against `python -c "import rapidfuzz.process"`
(the floor any rapidfuzz-based tool pays), warm search against a bare `process.extractOne` over as
many strings, and how build time, cache size, cold start and memory grow with the folder.
Generated folders and index caches live in a temporary folder, removed at the end. Timing is
kept out of the test suite: machines differ, and a timed test only measures the noise.
"""

from __future__ import annotations

import argparse
import os
import platform
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.generate import generate  # noqa: E402

# Realistic questions, typed the ways people type them: English, Vietnamese with and without
# diacritics, typos, error messages, a long one, an off-topic one.
QUERIES: tuple[str, ...] = (
    "what is MIG?",
    "how do I share one GPU between several pods",
    "mig la gi",
    "co the chay nhieu job tren mot gpu khong",
    "Làm sao chia sẻ một GPU cho nhiều mô hình suy luận nhỏ?",
    "kubernets timeslicing",
    "pod pending insufficient nvidia.com/gpu",
    "CUDA driver version is insufficient for CUDA runtime version",
    "is kubernetes worth it for a single training job",
    "spot gpu bị thu hồi giữa chừng",
    "we are a small team and want to fine-tune a model on eight gpus across two nodes, do we need infiniband or is ethernet enough",
    "gpu operator vs device plugin",
    "how to stop paying for idle gpu nodes at night",
    "best pizza in hanoi",
)
# Entries present in every generated folder: their questions, one word dropped and one typo,
# stand for what users of a large folder ask about its own vocabulary.
GENERATED_SAMPLES = 6
ASK_QUESTION = "how do I split an A100 into MIG instances?"
SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
# Child process that times the TUI: imports, then run_test() until the first screen is painted.
TUI_PROBE = r"""
import asyncio, sys, time
started = time.perf_counter()
from advisor.tui.app import AdvisorApp
imported = time.perf_counter()
async def main():
    app = AdvisorApp()
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        painted = time.perf_counter()
        print(f"{imported - started} {painted - imported}", flush=True)
asyncio.run(main())
"""
ASK_WRAPPER = "from advisor.cli import run; run()"  # what the `advisor` console script runs


@dataclass
class Run:
    seconds: float
    max_rss_mb: float
    code: int
    output: bytes = b""


def machine() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import rapidfuzz

    return [
        f"CPU: {cpu}, {os.cpu_count()} cores",
        f"Python {platform.python_version()} ({platform.python_implementation()}), rapidfuzz {rapidfuzz.__version__}",
        f"OS: {platform.system()} {platform.release()}",
    ]


def spawn(argv: Sequence[str], env: dict[str, str], *, tty: bool = False, keep_output: bool = False) -> Run:
    """Run `argv` to completion: wall time, the child's own peak RSS, exit code (and output).

    With `tty`, the child writes to a pseudo-terminal, as when a person runs it, so it colours
    and styles its answer; the harness drains the terminal while it runs.
    """
    chunks: list[bytes] = []
    if tty:
        leader, follower = pty.openpty()
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
        os.close(follower)
        while True:
            ready, _, _ = select.select([leader], [], [], 5.0)
            if not ready:
                continue
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            if keep_output:
                chunks.append(data)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        os.close(leader)
    else:
        started = time.perf_counter()
        stdout = subprocess.PIPE if keep_output else subprocess.DEVNULL
        process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.DEVNULL)
        if keep_output:
            assert process.stdout is not None
            chunks.append(process.stdout.read())
            process.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return Run(elapsed, rss, process.returncode, b"".join(chunks))


def interleaved(commands: dict[str, Callable[[], Run]], rounds: int) -> dict[str, list[Run]]:
    """Each command once per round, the order rotated every round, so drift hits all alike."""
    names = list(commands)
    results: dict[str, list[Run]] = {name: [] for name in names}
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(commands[name]())
    return results


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}" if seconds < 10 else f"{seconds * 1000:.0f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table (so the output can be pasted into the README as it is)."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    line = lambda cells: "| " + " | ".join(str(cell).ljust(width) for cell, width in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(headers), "|" + "|".join("-" * (width + 2) for width in widths) + "|", *(line(row) for row in rows)])


def environment(cache: Path, **extra: str) -> dict[str, str]:
    """The children's environment: private cache and config, and byte code cached as after an
    install (in the benchmark's temporary folder, so the work tree stays clean)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ADVISOR_")}
    env.update(
        ADVISOR_CACHE_DIR=str(cache),
        ADVISOR_CONFIG_DIR=str(cache / "config"),
        PYTHONPATH=str(REPO),
        PYTHONPYCACHEPREFIX=str(cache.parent / "pycache"),
        TERM=env.get("TERM", "xterm-256color"),
    )
    for name in ("NO_COLOR", "PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME"):
        env.pop(name, None)
    env.update(extra)
    return env


def ask_argv(*args: str) -> list[str]:
    """`advisor ...` as the installed console script runs it (without needing it installed)."""
    return [sys.executable, "-c", ASK_WRAPPER, *args]


# 1. Start-up ----------------------------------------------------------------------------------


def startup(work: Path, rounds: int) -> str:
    env = environment(work / "cache-startup")
    warm = spawn(ask_argv("ask", "--json", ASK_QUESTION), env, keep_output=True)  # builds the cache
    if warm.code != 0 or b'"answered": true' not in warm.output:
        raise SystemExit(f"advisor ask failed (exit {warm.code}): {warm.output[:500]!r}")
    commands = {
        "floor": lambda: spawn([sys.executable, "-c", "import rapidfuzz.process"], env),
        "json": lambda: spawn(ask_argv("ask", "--json", ASK_QUESTION), env),
        "tty": lambda: spawn(ask_argv("ask", ASK_QUESTION), env, tty=True),
        "pass": lambda: spawn([sys.executable, "-c", "pass"], env),
    }
    interleaved(commands, 2)  # warm-up: byte code written, files in the page cache
    results = interleaved(commands, rounds)
    rendered = spawn(ask_argv("ask", ASK_QUESTION), env, tty=True, keep_output=True)
    if b"\x1b[" not in rendered.output:
        raise SystemExit("the answer on a terminal was not styled: the pty harness is not a terminal")
    median = {name: statistics.median(run.seconds for run in runs) for name, runs in results.items()}
    floor = median["floor"]
    labels = {
        "pass": ('python -c "pass" (interpreter alone)', ""),
        "floor": ('python -c "import rapidfuzz.process" (floor)', ""),
        "json": (f'advisor ask --json "{ASK_QUESTION}"', "<= 1.5x"),
        "tty": (f'advisor ask "{ASK_QUESTION}" on a terminal (pty)', "<= 2.5x"),
    }
    rows = []
    for name in ("pass", "floor", "json", "tty"):
        runs = results[name]
        label, target = labels[name]
        ratio = median[name] / floor
        verdict = "" if not target else ("ok" if ratio <= float(target.split()[1].rstrip("x")) else "MISSED")
        rows.append([label, ms(median[name]), ms(min(r.seconds for r in runs)), f"{ratio:.2f}x", target, verdict, f"{max(r.max_rss_mb for r in runs):.0f}"])
    text = table(["command (bundled knowledge, warm index cache)", "median ms", "min ms", "vs floor", "target", "", "peak MB"], rows)
    return f"{rounds} runs each, interleaved\n\n{text}"


# 2. Warm search -------------------------------------------------------------------------------


def _timed(function: Callable[[], object], budget: float, most: int) -> float:
    """Median seconds of `function` over up to `most` calls within about `budget` seconds."""
    times: list[float] = []
    deadline = time.perf_counter() + budget
    while len(times) < most and (len(times) < 3 or time.perf_counter() < deadline):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
        if times[-1] > budget:  # one call is already the whole budget
            break
    return statistics.median(times)


def warm_search(root: Path, cache: Path, label: str) -> tuple[list[str], dict[str, float]]:
    os.environ["ADVISOR_CACHE_DIR"] = str(cache)
    from rapidfuzz import process

    from advisor.library import open_index
    from advisor.search.rank import search

    index = open_index(root)
    queries = list(QUERIES)
    if label != "bundled":
        queries += _generated_queries(index)
    strings = list(index.phrases)  # pre-normalised, as the index holds them
    big = len(strings) > 200_000
    ours, bare, ratios = [], [], []
    for query in queries:
        search(index, query)  # first call fills per-process caches (vocabulary buckets)
        ours.append(_timed(lambda: search(index, query), 0.3, 200))
        folded = " ".join(index.analyzer.words(query))
        bare.append(_timed(lambda: process.extractOne(folded, strings), 0.3 if not big else 0.0, 50))
        ratios.append(ours[-1] / bare[-1])
    ours_median, bare_median = statistics.median(ours), statistics.median(bare)
    row = [
        label,
        f"{len(index.entries):,}",
        f"{len(strings):,}",
        f"{ours_median * 1000:.2f}",
        f"{max(ours) * 1000:.2f}",
        f"{bare_median * 1000:.2f}",
        f"{ours_median / bare_median:.3f}x",
        f"{max(ratios):.3f}x",
    ]
    return row, {"search": ours_median, "bare": bare_median, "queries": len(queries)}


def _generated_queries(index: object) -> list[str]:
    """Questions of the first generated entries, one word dropped and two letters swapped."""
    out = []
    starts = index.topic_phrase_start  # type: ignore[attr-defined]
    for number in range(1, GENERATED_SAMPLES + 1):
        topic = index.topic_of(f"topic-{number:06d}")  # type: ignore[attr-defined]
        if topic is None or starts[topic + 1] - starts[topic] < 2:
            continue
        words = index.phrase_text[starts[topic] + 1].rstrip("?").split()  # type: ignore[attr-defined]
        if len(words) > 3:
            del words[len(words) // 2]
        longest = max(range(len(words)), key=lambda i: len(words[i]))
        if len(words[longest]) > 4:
            word = words[longest]
            words[longest] = word[0] + word[2] + word[1] + word[3:]
        out.append(" ".join(words))
    return out


# 3. Scaling -----------------------------------------------------------------------------------


BUILD_PROBE = "import sys; from pathlib import Path; from advisor.library import open_index; open_index(Path(sys.argv[1]))"


def scaling(root: Path, cache: Path, label: str, runs: int) -> tuple[list[str], dict[str, float]]:
    env = environment(cache)
    build = spawn([sys.executable, "-c", BUILD_PROBE, str(root)], env)
    if build.code != 0:
        raise SystemExit(f"building the index of {root} failed")
    size = sum(path.stat().st_size for path in cache.glob("index-*"))
    asks = [spawn(ask_argv("ask", "--kb", str(root), "--json", ASK_QUESTION), env) for _ in range(runs)]
    if any(run.code not in (0, 1) for run in asks):
        raise SystemExit(f"advisor ask --kb {root} failed")
    cold = statistics.median(run.seconds for run in asks)
    peak = max(run.max_rss_mb for run in asks)
    row = [label, f"{build.seconds:.2f}", f"{build.max_rss_mb:.0f}", f"{size / 1e6:.1f}", ms(cold), f"{peak:.0f}"]
    return row, {"build": build.seconds, "build_mb": build.max_rss_mb, "size": size, "cold": cold, "peak": peak}


def growth(points: dict[int, dict[str, float]], key: str) -> str:
    """How `key` grows between the smallest and largest generated folder, as size ** exponent."""
    import math

    sizes = sorted(points)
    if len(sizes) < 2:
        return "n/a"
    low, high = sizes[0], sizes[-1]
    ratio = points[high][key] / points[low][key]
    exponent = math.log(ratio) / math.log(high / low)
    return f"x{ratio:.1f} for x{high // low} entries (~ N^{exponent:.2f})"


# 4. TUI ---------------------------------------------------------------------------------------


def tui(work: Path, runs: int) -> str:
    if not (REPO / "advisor" / "tui" / "app.py").exists():
        return "skipped: advisor/tui/app.py does not exist yet"
    env = environment(work / "cache-startup")
    first: list[tuple[float, float, float]] = []
    for _ in range(runs):
        run = spawn([sys.executable, "-c", TUI_PROBE], env, keep_output=True)
        if run.code != 0:
            return f"skipped: the TUI probe failed (exit {run.code}): {run.output[-300:]!r}"
        imported, painted = map(float, run.output.split()[-2:])
        first.append((run.seconds, imported, painted))
    wall = statistics.median(f[0] for f in first)
    imports = statistics.median(f[1] for f in first)
    paint = statistics.median(f[2] for f in first)

    os.environ["ADVISOR_CACHE_DIR"] = str(work / "cache-startup")
    from advisor.library import open_index
    from advisor.paths import bundled_knowledge_dir

    try:
        from advisor.search.suggest import QuestionSuggester
    except ImportError as error:
        return f"skipped: {error}"
    index = open_index(bundled_knowledge_dir())
    started = time.perf_counter()
    suggester = QuestionSuggester(index)
    built = time.perf_counter() - started
    keystrokes: list[float] = []
    for question in QUERIES:
        for end in range(1, len(question) + 1):  # every prefix, as the chat screen sees them
            started = time.perf_counter()
            suggester.suggest(question[:end], "en")
            keystrokes.append(time.perf_counter() - started)
    keystrokes.sort()
    p95 = keystrokes[int(len(keystrokes) * 0.95)]
    rows = [
        ["first screen painted, from process start (run_test, headless)", ms(wall), "<= 1000", "ok" if wall <= 1 else "MISSED"],
        ["  of which: importing the app", ms(imports), "", ""],
        ["  of which: run_test() until painted (index load, compose, first refresh)", ms(paint), "", ""],
        ["suggestions per keystroke, median (QuestionSuggester.suggest)", f"{statistics.median(keystrokes) * 1000:.2f}", "<= 16", "ok" if statistics.median(keystrokes) <= 0.016 else "MISSED"],
        ["suggestions per keystroke, 95th percentile", f"{p95 * 1000:.2f}", "<= 16", "ok" if p95 <= 0.016 else "MISSED"],
        ["suggestions per keystroke, worst", f"{keystrokes[-1] * 1000:.2f}", "", ""],
        ["QuestionSuggester built once per index", f"{built * 1000:.2f}", "", ""],
    ]
    note = f"{runs} runs of the app; {len(keystrokes)} keystrokes: every prefix of the {len(QUERIES)} questions above"
    return note + "\n\n" + table(["TUI (bundled knowledge)", "ms", "target ms", ""], rows)


# Main -----------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs; generated folders up to 10,000 entries")
    parser.add_argument("--sizes", help="comma-separated generated folder sizes (default 1000,10000,100000)")
    parser.add_argument("--runs", type=int, help="start-up runs per command (default 21; 7 with --quick)")
    parser.add_argument("--keep", type=Path, help="generate folders here and keep them (reused when present)")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (QUICK_SIZES if args.quick else SIZES)
    rounds = args.runs or (7 if args.quick else 21)
    cold_runs = 3 if args.quick else 7

    print("# advisor benchmark (issue 5)\n")
    print("\n".join(f"- {line}" for line in machine()))
    print(f"- command: python benchmarks/run.py{' --quick' if args.quick else ''}\n")
    temporary = Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    folders = args.keep or temporary
    try:
        print("## Start-up: a new process per question\n")
        print(startup(temporary, rounds) + "\n", flush=True)

        from advisor.paths import bundled_knowledge_dir

        kbs: list[tuple[str, Path, int]] = [("bundled", bundled_knowledge_dir(), 0)]
        for size in sizes:
            folder = folders / f"kb-{size}"
            if not (folder / "lexicon.yaml").exists():
                started = time.perf_counter()
                generate(size, folder)
                print(f"(generated {size:,} entries in {time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)
            kbs.append((f"{size:,} entries", folder, size))

        scale_rows, points = [], {}
        for label, root, size in kbs:
            row, point = scaling(root, temporary / f"cache-{size}", label, cold_runs)
            scale_rows.append(row)
            if size:
                points[size] = point
        search_rows, search_points = [], {}
        for label, root, size in kbs:
            row, point = warm_search(root, temporary / f"cache-{size}", label)
            search_rows.append(row)
            if size:
                search_points[size] = point

        print("## Warm search: one query in a running process\n")
        print(
            "Median over the queries of each query's median time. `extractOne` is a bare\n"
            "`rapidfuzz.process.extractOne(query, strings)` (default scorer, WRatio) over as many\n"
            "pre-normalised strings as the index has phrases, timed in the same run. Generated\n"
            f"folders add {GENERATED_SAMPLES} questions from their own entries (a word dropped, a typo).\n"
            "Targets: <= 2x extractOne; guide < 1 ms bundled, < 10 ms at 10,000, < 60 ms at 100,000.\n"
        )
        print(table(["knowledge", "entries", "phrases", "search ms", "worst query ms", "extractOne ms", "ratio", "worst query ratio"], search_rows) + "\n")

        print("## Scaling: index build, cache, cold start, memory\n")
        print(
            f"Build: a fresh process indexing the folder (cache empty). Cold ask: a new process\n"
            f"`advisor ask --kb DIR --json` with the index cached, median of {cold_runs}; peak MB is its\n"
            "ru_maxrss. Targets: cold ask at 10,000 entries <= 500 ms; peak at 100,000 < 300 MB.\n"
        )
        print(table(["knowledge", "build s", "build peak MB", "cache MB", "cold ask ms", "ask peak MB"], scale_rows) + "\n")
        if len(points) >= 2:
            merged = {size: {**points[size], **search_points.get(size, {})} for size in points}
            rows = [
                ["index build time", growth(merged, "build")],
                ["index build peak memory", growth(merged, "build_mb")],
                ["cache file size", growth(merged, "size")],
                ["cold ask time", growth(merged, "cold")],
                ["cold ask peak memory", growth(merged, "peak")],
                ["warm search time", growth(merged, "search")],
                ["bare extractOne time", growth(merged, "bare")],
            ]
            print(table(["how it grows with the folder", f"{min(points):,} -> {max(points):,} entries"], rows) + "\n")

        print("## TUI\n")
        print(tui(temporary, 3 if args.quick else 5) + "\n")
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
