"""advisor's speed, measured side by side in one run, as users run it (issues 5 and 14). By hand:

    python benchmarks/run.py                 # start-up of every command, warm search, the app (~2 min)
    python benchmarks/run.py --scale         # and generated folders of 10,000 and 100,000 entries (~10 min)
    python benchmarks/run.py --scale --sizes 10000
    python benchmarks/run.py --smoke         # a few runs of each, targets not enforced (the test suite)

Every ratio is against something measured in the same run, alternately where two processes race:
a command's start-up against `python -c "import rapidfuzz.process"` (the floor any rapidfuzz-based
tool pays), round by round (the ratio is the median of each round's ratio); warm search against a
bare `process.extractOne` over as many strings. Children run with the default cache location, as
users run advisor: a temporary HOME (so the real cache is untouched), no ADVISOR_CACHE_DIR, byte
code cached as after an install. Generated folders are kept under /tmp between runs.

The results go to benchmarks/results.md (the README's figures are copied from it), and the exit
status is 1 when a target is missed. Timing is kept out of the test suite: machines differ.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
ASK_QUESTION = "how do I split an A100 into MIG instances?"
# Entries of a generated folder whose questions (a word dropped, a typo) stand for what its users ask.
GENERATED_SAMPLES = 40
SCALE_SIZES = (10_000, 100_000)
KB_HOME = Path(tempfile.gettempdir()) / "advisor-bench-kb"
FLOOR = "python -c \"import rapidfuzz.process\""
WRAPPER = "from advisor.cli import run; run()"  # what the `advisor` console script runs
# The app, timed from outside: the child prints a line once the first screen is painted.
TUI_PROBE = r"""
import asyncio, sys
from advisor.tui.app import AdvisorApp
async def main():
    app = AdvisorApp()
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        print("painted", flush=True)
        await app.knowledge_ready.wait()
        print("ready", flush=True)
asyncio.run(main())
"""
# The reader (Ctrl+O), timed inside one app: for each long entry, alternately as built (its first
# screenful painted first, the rest after) and whole at once, the milliseconds until a frame shows
# the entry's text and until its last frame. Prints one JSON line.
READER_PROBE = r"""
import asyncio, json, sys, time
from advisor.tui.app import AdvisorApp
from advisor.tui.screens import entry_screen
ROUNDS = int(sys.argv[1])
TOPICS = sys.argv[2:]
async def main():
    app = AdvisorApp(lang="en")
    frames = []
    shown = app._display
    def display(screen, renderable):
        if isinstance(screen, entry_screen.EntryScreen) and screen.query("#entry-markdown") and screen.query_one("#entry-markdown").children:
            frames.append(time.perf_counter())
        return shown(screen, renderable)
    app._display = display
    results = {"as built": [], "whole at once": []}
    built = entry_screen.FIRST_LINES
    async with app.run_test(size=(100, 32)) as pilot:
        await app.knowledge_ready.wait()
        for _ in range(ROUNDS):
            for mode, lines in (("as built", built), ("whole at once", 10**9)):
                for topic in TOPICS:
                    entry_screen.FIRST_LINES = lines
                    frames.clear()
                    started = time.perf_counter()
                    app.open_entry(topic, "en")
                    await pilot.wait_for_scheduled_animations()
                    await pilot.pause(0.6)
                    results[mode].append((frames[0] - started, frames[-1] - started))
                    await pilot.press("escape")
                    await pilot.pause(0.2)
    print(json.dumps(results), flush=True)
asyncio.run(main())
"""
# The longest entries (and `mig`, which answers the benchmark's question), opened in the reader.
READER_TOPICS = ("kueue-gpu-queues", "vllm-on-kubernetes", "kserve", "gpu-memory-sizing", "pods-pending-gpu", "mig")


@dataclass
class Run:
    seconds: float
    max_rss_mb: float
    code: int
    output: bytes = b""
    marks: dict[str, float] = field(default_factory=dict)
    tree_mb: float = 0.0


@dataclass
class Target:
    what: str
    value: float
    limit: float
    unit: str

    @property
    def met(self) -> bool:
        return self.value <= self.limit

    def cell(self) -> str:
        return f"<= {self.limit:g}{self.unit}: {'met' if self.met else 'MISSED'}"


TARGETS: list[Target] = []


def target(what: str, value: float, limit: float, unit: str = "x") -> str:
    TARGETS.append(Target(what, value, limit, unit))
    return TARGETS[-1].cell()


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

    try:
        load = " (load average %.1f %.1f %.1f at the start)" % os.getloadavg()
    except OSError:
        load = ""
    return [
        f"CPU: {cpu}, {os.cpu_count()} cores{load}",
        f"Python {platform.python_version()} ({platform.python_implementation()}), rapidfuzz {rapidfuzz.__version__}",
        f"OS: {platform.system()} {platform.release()}",
    ]


# Processes -------------------------------------------------------------------------------------


def environment(home: Path, **extra: str) -> dict[str, str]:
    """The children's environment: the default cache and config locations under a temporary
    HOME, and byte code cached as after an install (outside the work tree)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ADVISOR_", "XDG_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(home.parent / "pycache"), TERM=env.get("TERM", "xterm-256color"), LANG="C.UTF-8")
    for name in ("NO_COLOR", "PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME", "LANGUAGE", "LC_ALL"):
        env.pop(name, None)
    env.update(extra)
    return env


def spawn(argv: Sequence[str], env: dict[str, str], *, tty: bool = False, keep_output: bool = False, marks: Sequence[bytes] = (), sample: bool = False, stdin: Path | None = None) -> Run:
    """Run `argv` to completion: wall time, peak RSS (`ru_maxrss` from wait4: the largest single
    process of its tree), exit code, output; with `marks`, when each marker line was printed;
    with `sample`, the peak summed RSS of the whole process tree (workers included); with
    `stdin`, that file as its standard input."""
    chunks: list[bytes] = []
    seen: dict[str, float] = {}
    if tty:
        leader, follower = pty.openpty()
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
        os.close(follower)
        source = leader
    else:
        with open(stdin, "rb") if stdin is not None else open(os.devnull, "rb") as source_file:
            started = time.perf_counter()
            process = subprocess.Popen(argv, env=env, stdin=source_file, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        source = process.stdout.fileno()
    tree = [0.0]
    sampler = None
    if sample:
        stop = threading.Event()
        sampler = threading.Thread(target=_sample_tree, args=(process.pid, stop, tree), daemon=True)
        sampler.start()
    while True:
        ready, _, _ = select.select([source], [], [], 5.0)
        if not ready:
            continue
        try:
            data = os.read(source, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        now = time.perf_counter() - started
        for mark in marks:
            if mark in data and mark.decode() not in seen:
                seen[mark.decode()] = now
        if keep_output or marks:
            chunks.append(data)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if sampler is not None:
        stop.set()
        sampler.join()
    if tty:
        os.close(leader)
    else:
        process.stdout.close()  # type: ignore[union-attr]
    process.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return Run(elapsed, rss, process.returncode, b"".join(chunks), seen, tree[0])


def _sample_tree(pid: int, stop: threading.Event, peak: list[float]) -> None:
    while not stop.wait(0.05):
        peak[0] = max(peak[0], _tree_rss(pid) / 1024)


def _tree_rss(pid: int) -> float:
    """KB of resident memory of `pid` and its descendants (Linux /proc; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            own = next((int(line.split()[1]) for line in handle if line.startswith("VmRSS:")), 0)
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            children = [int(child) for child in handle.read().split()]
    except (OSError, ValueError):
        return 0.0
    return own + sum(_tree_rss(child) for child in children)


def peak_mb(argv: Sequence[str], env: dict[str, str]) -> float:
    """Peak RSS of one run of `argv`, through GNU time when there is one: a child forked from
    this harness starts with the harness's own pages counted (about 20 MB), one forked from
    `time` does not. Falls back to `ru_maxrss` as wait4 reports it."""
    if not os.access("/usr/bin/time", os.X_OK):
        return spawn(argv, env).max_rss_mb
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        return int(done.stderr.strip().splitlines()[-1]) / 1024
    except (IndexError, ValueError):
        return spawn(argv, env).max_rss_mb


def advisor(*args: str) -> list[str]:
    """`advisor ...` as the installed console script runs it (without needing it installed)."""
    return [sys.executable, "-c", WRAPPER, *args]


def race(commands: dict[str, Callable[[], Run]], rounds: int) -> dict[str, list[Run]]:
    """Each command once per round, the order rotated every round, so drift hits all alike."""
    names = list(commands)
    results: dict[str, list[Run]] = {name: [] for name in names}
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(commands[name]())
    return results


def paired(runs: list[Run], floor: list[Run]) -> float:
    """Median over the rounds of each round's ratio to the floor's run of the same round."""
    return statistics.median(run.seconds / base.seconds for run, base in zip(runs, floor))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}" if seconds < 10 else f"{seconds * 1000:.0f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table (so the output can be pasted into the README as it is)."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    line = lambda cells: "| " + " | ".join(str(cell).ljust(width) for cell, width in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(headers), "|" + "|".join("-" * (width + 2) for width in widths) + "|", *(line(row) for row in rows)])


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)]


# 1. Start-up ----------------------------------------------------------------------------------

# (label, arguments, target vs the floor, how the command is run)
STARTUP: tuple[tuple[str, tuple[str, ...], float | None, str], ...] = (
    (f'advisor ask --json "{ASK_QUESTION}"', ("ask", "--json", ASK_QUESTION), 1.3, "pipe"),
    (f'advisor ask "{ASK_QUESTION}" on a terminal (pty, styled)', ("ask", ASK_QUESTION), None, "tty"),
    ("advisor show mig", ("show", "mig"), 1.2, "pipe"),
    ("advisor list", ("list",), 1.2, "pipe"),
    ("advisor --version", ("--version",), 1.2, "pipe"),
    ("advisor recommend --answer workload=notebook --format json", ("recommend", "--answer", "workload=notebook", "--format", "json"), 1.5, "pipe"),
    ("advisor providers --json", ("providers", "--json"), 1.5, "pipe"),
)


def startup(work: Path, rounds: int) -> str:
    env = environment(work / "home-startup")
    for _, args, _, _ in STARTUP:  # builds the caches (index, tree) and writes the byte code
        first = spawn(advisor(*args), env, keep_output=True)
        if first.code not in (0, 1):
            raise SystemExit(f"advisor {' '.join(args)} failed (exit {first.code}): {first.output[:500]!r}")
    commands: dict[str, Callable[[], Run]] = {
        "floor": lambda: spawn([sys.executable, "-c", "import rapidfuzz.process"], env),
        "pass": lambda: spawn([sys.executable, "-c", "pass"], env),
    }
    for label, args, _, how in STARTUP:
        commands[label] = lambda args=args, how=how: spawn(advisor(*args), env, tty=how == "tty")  # type: ignore[misc]
    race(commands, 2)  # warm-up: files in the page cache
    results = race(commands, rounds)
    rendered = spawn(advisor("ask", ASK_QUESTION), env, tty=True, keep_output=True)
    if b"\x1b[" not in rendered.output:
        raise SystemExit("the answer on a terminal was not styled: the pty harness is not a terminal")
    floor = results["floor"]
    rows = [
        ['python -c "pass" (the interpreter alone)', ms(statistics.median(r.seconds for r in results["pass"])), f"{paired(results['pass'], floor):.2f}x", "", f"{peak_mb([sys.executable, '-c', 'pass'], env):.0f}"],
        [f"{FLOOR} (the floor)", ms(statistics.median(r.seconds for r in floor)), "1.00x", "", f"{peak_mb([sys.executable, '-c', 'import rapidfuzz.process'], env):.0f}"],
    ]
    for label, args, limit, _ in STARTUP:
        runs = results[label]
        ratio = paired(runs, floor)
        verdict = target(f"start-up: {label}", ratio, limit) if limit else ""
        rows.append([label, ms(statistics.median(r.seconds for r in runs)), f"{ratio:.2f}x", verdict, f"{peak_mb(advisor(*args), env):.0f}"])
    text = table(["command (bundled knowledge, caches built, default cache location)", "median ms", "vs floor", "target", "peak MB"], rows)
    return f"{rounds} rounds, each command once per round in rotating order; the ratio is the median of the rounds' ratios.\n\n{text}"


# 2. Warm search -------------------------------------------------------------------------------


def _timed(function: Callable[[], object], budget: float, most: int) -> float:
    """Median seconds of `function` over up to `most` calls within about `budget` seconds."""
    times: list[float] = []
    deadline = time.perf_counter() + budget
    while len(times) < most and (len(times) < 3 or time.perf_counter() < deadline):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
        if times[-1] > budget:
            break
    return statistics.median(times)


def generated_questions(index: object, count: int) -> list[str]:
    """Questions of a generated folder's first entries, one word dropped and two letters swapped."""
    out = []
    starts = index.topic_phrase_start  # type: ignore[attr-defined]
    for number in range(1, count + 1):
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


def warm_search(index: object, label: str, queries: list[str], bare_budget: float) -> list[str]:
    from rapidfuzz import process

    from advisor.search.rank import search

    strings = list(index.phrases)  # type: ignore[attr-defined]
    ours, bare, ratios = [], [], []
    for query in queries:
        search(index, query)  # type: ignore[arg-type]  # first call fills per-process caches
        ours.append(_timed(lambda: search(index, query), 0.3, 200))  # type: ignore[arg-type]
        folded = " ".join(index.analyzer.words(query))  # type: ignore[attr-defined]
        bare.append(_timed(lambda: process.extractOne(folded, strings), bare_budget, 50))
        ratios.append(ours[-1] / bare[-1])
    return [label, f"{len(index.entries):,}", f"{len(strings):,}", f"{statistics.median(ours) * 1000:.2f}", f"{max(ours) * 1000:.2f}", f"{statistics.median(bare) * 1000:.2f}", f"{statistics.median(ratios):.3f}x"]  # type: ignore[attr-defined]


# 3. The app -----------------------------------------------------------------------------------


def first_paint(env: dict[str, str], runs: int) -> tuple[float, float, float]:
    """Medians over `runs` fresh processes: seconds to the first screen, to the knowledge loaded,
    and peak MB."""
    paints, readies, peaks = [], [], []
    spawn([sys.executable, "-c", TUI_PROBE], env, marks=(b"ready",))  # warm-up: byte code, page cache, the index
    for _ in range(runs):
        run = spawn([sys.executable, "-c", TUI_PROBE], env, marks=(b"painted", b"ready"))
        if run.code != 0 or "painted" not in run.marks:
            raise SystemExit(f"the app probe failed (exit {run.code}): {run.output[-400:]!r}")
        paints.append(run.marks["painted"])
        readies.append(run.marks.get("ready", run.seconds))
        peaks.append(run.max_rss_mb)
    return statistics.median(paints), statistics.median(readies), max(peaks)


def reader(env: dict[str, str], rounds: int) -> str:
    """The reader's table: medians of the milliseconds to the first frame with the entry's text
    and to its last frame, as built and with the whole entry rendered at once."""
    run = spawn([sys.executable, "-c", READER_PROBE, str(rounds), *READER_TOPICS], env, keep_output=True)
    if run.code != 0:
        raise SystemExit(f"the reader probe failed (exit {run.code}): {run.output[-400:]!r}")
    results = json.loads(run.output.decode().strip().splitlines()[-1])
    rows = []
    for mode, timings in results.items():
        first = statistics.median(first for first, _ in timings)
        last = statistics.median(last for _, last in timings)
        aim = target("reader shows the entry (Ctrl+O)", first, 0.5, " s") if mode == "as built" else ""
        rows.append([mode, ms(first), ms(last), str(len(timings)), aim])
    return table(["entry in the reader", "text shown ms", "last frame ms", "openings", "target"], rows)


def keystrokes(index: object, questions: list[str]) -> tuple[list[float], float]:
    """Milliseconds of `QuestionSuggester.suggest` for every prefix of `questions` (what typing
    them costs), and how long building the suggester took."""
    from advisor.search.suggest import QuestionSuggester

    started = time.perf_counter()
    suggester = QuestionSuggester(index)  # type: ignore[arg-type]
    built = time.perf_counter() - started
    timings = []
    for question in questions:
        for end in range(1, len(question) + 1):
            started = time.perf_counter()
            suggester.suggest(question[:end], "en")
            timings.append((time.perf_counter() - started) * 1000)
    return timings, built


def keystroke_row(label: str, timings: list[float], built: float, questions: int) -> list[str]:
    p99 = quantile(timings, 0.99)
    return [
        label,
        f"{questions} / {len(timings):,}",
        f"{statistics.median(timings):.2f}",
        f"{quantile(timings, 0.95):.2f}",
        f"{p99:.2f}",
        f"{max(timings):.1f}",
        f"{sum(t > 16 for t in timings)}",
        f"{built * 1000:.0f}",
        target(f"suggestions p99, {label}", p99, 16, " ms"),
    ]


def dev_questions() -> list[str]:
    lines = (REPO / "tests" / "eval" / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["q"] for line in lines[:40] if line.strip()]


def app_section(work: Path, runs: int, smoke: bool) -> str:
    from advisor.library import open_index
    from advisor.paths import bundled_knowledge_dir

    env = environment(work / "home-startup")
    paint, ready, peak = first_paint(env, runs)
    index = open_index(bundled_knowledge_dir())
    questions = list(QUERIES) + ([] if smoke else dev_questions())
    timings, built = keystrokes(index, questions)
    rows = [["bundled", ms(paint), ms(ready), f"{peak:.0f}", target("app first paint, bundled", paint, 1.0, " s")]]
    text = table(["knowledge", "first screen ms", "knowledge loaded ms", "peak MB", "target"], rows)
    suggest = table(["suggestions while typing", "questions / keystrokes", "median ms", "p95", "p99", "worst", "over 16 ms", "build ms", "target"], [keystroke_row("bundled", timings, built, len(questions))])
    rounds = 1 if smoke else 3
    opened = reader(env, rounds)
    return (
        f"First paint: a new process, `AdvisorApp().run_test()` until the first screen, median of {runs} runs (the knowledge is loaded after it, in a thread).\n\n{text}\n\n{suggest}\n\n"
        f"Opening an entry in the reader (Ctrl+O), inside one app: {', '.join(READER_TOPICS)}, {rounds} rounds, each time as built (the first\n"
        f"screenful first, the rest after it) and whole at once; the time until a frame shows the entry's text, and until its last frame.\n\n{opened}"
    )


# 4. A pasted log ------------------------------------------------------------------------------

# The line `advisor ask -` must find in the log, and the entry it must answer with.
LOG_ERROR = "  Warning  FailedScheduling  12s  default-scheduler  0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
LOG_ANSWER = "pods-pending-gpu"


def pasted_log(path: Path, megabytes: int = 10) -> Path:
    """A `kubectl logs`-like file of `megabytes` MB (timestamps, pod names, ids and numbers that
    change on every line) with one known error line two thirds of the way through."""
    import random

    chooser = random.Random(5)
    shapes = (
        "{t} I1203 {c}  1 controller.go:{n}] Reconciling pod trainer-{h} in namespace ml-{k}: phase Running, restarts {r}",
        "{t} step={n} loss={f:.4f} lr={g:.2e} tokens_per_second={k}{r}",
        "{t} INFO  Saved checkpoint shard {r} of 8 to /mnt/checkpoints/run-{h}/step-{n}",
        "{t} DEBUG http GET /healthz 200 {k}ms request_id={h}",
    )
    lines: list[str] = []
    size = 0
    while size < megabytes * 1_000_000:
        line = chooser.choice(shapes).format(
            t=f"2026-12-03T10:{chooser.randrange(60):02d}:{chooser.randrange(60):02d}.{chooser.randrange(10**6):06d}Z",
            c=f"10:{chooser.randrange(60):02d}:{chooser.randrange(60):02d}", n=chooser.randrange(10**5), h=f"{chooser.getrandbits(40):010x}",
            k=chooser.randrange(1000), r=chooser.randrange(10), f=chooser.random() * 3, g=chooser.random() / 1000,
        )
        lines.append(line)
        size += len(line) + 1
    lines.insert(len(lines) * 2 // 3, LOG_ERROR)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def log_section(work: Path, runs: int, smoke: bool) -> str:
    env = environment(work / "home-startup")
    log = pasted_log(work / "pasted.log", 1 if smoke else 10)
    timed = [spawn(advisor("ask", "--json", "-"), env, keep_output=True, stdin=log) for _ in range(runs)]
    if any(run.code != 0 or LOG_ANSWER.encode() not in run.output for run in timed):
        raise SystemExit(f"advisor ask - did not answer the pasted log with {LOG_ANSWER}")
    seconds = statistics.median(run.seconds for run in timed)
    megabytes = log.stat().st_size / 1e6
    verdict = target(f"pasted log of {megabytes:.0f} MB answered", seconds, 1.0, " s") if not smoke else ""
    rows = [[f"{megabytes:.1f} MB, {sum(1 for _ in log.open(encoding='utf-8')):,} lines", ms(seconds), f"{max(run.max_rss_mb for run in timed):.0f}", verdict]]
    return (
        f"`advisor ask --json -` reading a `kubectl logs`-like paste from standard input (one known error line two thirds of the way\n"
        f"through), a new process each time, median of {runs} runs; it must answer with `{LOG_ANSWER}`.\n\n"
        + table(["log", "median ms", "peak MB", "target"], rows)
    )


# 5. Scale -------------------------------------------------------------------------------------


def folder(size: int, keep: Path) -> Path:
    path = keep / f"kb-{size}"
    if not (path / "lexicon.yaml").exists():
        started = time.perf_counter()
        generate(size, path)
        print(f"(generated {size:,} entries in {time.perf_counter() - started:.0f} s under {path})", file=sys.stderr, flush=True)
    return path


BUILD_RUNS = 3
BUILD_PROBE = "import sys; from advisor.library import open_index; open_index(sys.argv[1])"


def scale(work: Path, size: int, keep: Path, rounds: int, smoke: bool) -> tuple[list[str], list[str], list[str], list[str]]:
    """(build row, cold ask row, app row, keystroke row) of a generated folder of `size` entries."""
    root = folder(size, keep)
    home = work / f"home-{size}"
    env = environment(home)
    cache = home / ".cache" / "advisor"
    builds = []
    for _ in range(1 if smoke else BUILD_RUNS):  # the median of a few: one build's time varies with the machine's load
        shutil.rmtree(cache, ignore_errors=True)
        build = spawn([sys.executable, "-c", BUILD_PROBE, str(root)], env, sample=True)
        if build.code != 0:
            raise SystemExit(f"building the index of {root} failed (exit {build.code})")
        builds.append(build)
    seconds, peak, tree = statistics.median(b.seconds for b in builds), max(b.max_rss_mb for b in builds), max(b.tree_mb for b in builds)
    size_mb = sum(path.stat().st_size for path in cache.glob("index-*.marshal")) / 1e6
    build_row = [
        f"{size:,} entries",
        f"{seconds:.1f}",
        f"{peak:.0f}",
        f"{tree:.0f}",
        f"{size_mb:.0f}",
        target(f"index build time, {size:,} entries", seconds, 30, " s") if not smoke else "",
        target(f"index build peak (largest process), {size:,} entries", peak, 500, " MB") if not smoke else "",
    ]
    question = ("ask", "--kb", str(root), "--json", ASK_QUESTION)
    results = race({"floor": lambda: spawn([sys.executable, "-c", "import rapidfuzz.process"], env), "ask": lambda: spawn(advisor(*question), env)}, rounds)
    if any(run.code not in (0, 1) for run in results["ask"]):
        raise SystemExit(f"advisor ask --kb {root} failed")
    ratio = paired(results["ask"], results["floor"])
    ask_row = [f"{size:,} entries", ms(statistics.median(r.seconds for r in results["ask"])), f"{ratio:.2f}x", f"{peak_mb(advisor(*question), env):.0f}", target(f"cached cold ask, {size:,} entries", ratio, 3)]
    paint, ready, peak = first_paint(environment(home, ADVISOR_KB=str(root)), 1 if smoke else 3)
    app_row = [f"{size:,} entries", ms(paint), ms(ready), f"{peak:.0f}", target(f"app first paint, {size:,} entries", paint, 1.5, " s")]
    os.environ["HOME"] = str(home)
    from advisor.library import open_index

    index = open_index(root)
    questions = generated_questions(index, 8 if smoke else GENERATED_SAMPLES) + list(QUERIES)
    timings, built = keystrokes(index, questions)
    return build_row, ask_row, app_row, keystroke_row(f"{size:,} entries", timings, built, len(questions))


# Main -----------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", action="store_true", help="also measure generated folders (10,000 and 100,000 entries)")
    parser.add_argument("--sizes", help="comma-separated generated folder sizes for --scale (default 10000,100000)")
    parser.add_argument("--runs", type=int, help="start-up rounds (default 21; 3 with --smoke)")
    parser.add_argument("--keep", type=Path, default=KB_HOME, help=f"where generated folders are kept and reused (default {KB_HOME})")
    parser.add_argument("--output", type=Path, help="write the results here too (default benchmarks/results.md; none with --smoke)")
    parser.add_argument("--smoke", action="store_true", help="a few runs of each, small folders, targets not enforced")
    args = parser.parse_args(argv)
    rounds = args.runs or (3 if args.smoke else 21)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else ((300,) if args.smoke else SCALE_SIZES)
    output = args.output or (None if args.smoke else REPO / "benchmarks" / "results.md")
    command = "python benchmarks/run.py" + (" --scale" if args.scale else "") + (f" --sizes {args.sizes}" if args.sizes else "") + (" --smoke" if args.smoke else "")
    lines = ["# advisor benchmark (issues 5 and 14)", "", *(f"- {line}" for line in machine()), f"- command: `{command}`", f"- started {time.strftime('%Y-%m-%d %H:%M')}", ""]

    def say(text: str = "") -> None:
        lines.append(text)
        print(text, flush=True)

    for line in lines:
        print(line)
    work = Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    os.environ.pop("ADVISOR_CACHE_DIR", None)
    os.environ["HOME"] = str(work / "home-startup")
    try:
        say("## Start-up: a new process per command\n")
        say(startup(work, rounds) + "\n")
        from advisor.library import open_index
        from advisor.paths import bundled_knowledge_dir

        rows = [warm_search(open_index(bundled_knowledge_dir()), "bundled", list(QUERIES), 0.3)]
        say("## The app\n")
        say(app_section(work, 1 if args.smoke else 5, args.smoke) + "\n")
        say("## A pasted log\n")
        say(log_section(work, 1 if args.smoke else 5, args.smoke) + "\n")
        if args.scale or args.smoke:
            args.keep.mkdir(parents=True, exist_ok=True)
            builds, asks, apps, keys = [], [], [], []
            for size in sizes:
                build_row, ask_row, app_row, key_row = scale(work, size, args.keep, 3 if args.smoke else 11, args.smoke)
                builds.append(build_row)
                asks.append(ask_row)
                apps.append(app_row)
                keys.append(key_row)
                from advisor.library import open_index as reopen

                index = reopen(folder(size, args.keep))
                rows.append(warm_search(index, f"{size:,} entries", generated_questions(index, 8) + list(QUERIES[:4]), 0.3 if size <= 10_000 else 0.0))
                os.environ["HOME"] = str(work / "home-startup")
            say("## Scale: generated folders (benchmarks/generate.py)\n")
            say(f"Index build: a fresh process indexing the folder with the default cache location, {BUILD_RUNS} times (the median time). Peak is\n"
                "the largest `ru_maxrss` (the largest single process, as wait4 reports it); tree peak adds up every process of the build\n"
                "(its workers), sampled.\n"
                "Other peaks are one run's maximum RSS measured through GNU time (a child of this harness would count its pages).\n")
            say(table(["knowledge", "build s", "peak MB", "tree peak MB", "cache MB", "target (time)", "target (peak)"], builds) + "\n")
            say("Cached cold ask: `advisor ask --kb DIR --json` in a new process, raced against the floor.\n")
            say(table(["knowledge", "median ms", "vs floor", "peak MB", "target"], asks) + "\n")
            say("The app on that folder (`ADVISOR_KB`), and suggestions while typing its own questions (a word dropped, a typo) and the 14 above:\n")
            say(table(["knowledge", "first screen ms", "knowledge loaded ms", "peak MB", "target"], apps) + "\n")
            say(table(["suggestions while typing", "questions / keystrokes", "median ms", "p95", "p99", "worst", "over 16 ms", "build ms", "target"], keys) + "\n")
        say("## Warm search: one query in a running process\n")
        say(
            "Median over the queries of each query's median time (generated folders: some of their own questions, a word dropped\n"
            "and a typo, and 4 of the 14 above). `extractOne` is a bare `rapidfuzz.process.extractOne(query, strings)` (WRatio)\n"
            "over as many pre-normalised strings as the index has phrases, timed in the same run (once per query at 100,000).\n"
        )
        say(table(["knowledge", "entries", "phrases", "search ms", "worst query ms", "extractOne ms", "ratio"], rows) + "\n")
        missed = [item for item in TARGETS if not item.met]
        say("## Targets\n")
        say(table(["target", "measured", "limit", ""], [[item.what, f"{item.value:.2f}{item.unit}", f"{item.limit:g}{item.unit}", "met" if item.met else "MISSED"] for item in TARGETS]) + "\n")
        say(f"{len(TARGETS) - len(missed)} of {len(TARGETS)} targets met." + ("" if not missed else " Missed: " + "; ".join(item.what for item in missed) + "."))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if output is not None:
        output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1 if missed and not args.smoke else 0


if __name__ == "__main__":
    sys.exit(main())
