"""Regenerate docs/screenshot.svg, the README's picture of the app: `python -m tests.tui.make_screenshot`.

It drives the real app headless (`run_test`) with private config and cache folders, asks one
question and saves Textual's own SVG screenshot.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


async def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["ADVISOR_CONFIG_DIR"] = f"{scratch}/config"
        os.environ["ADVISOR_CACHE_DIR"] = f"{scratch}/cache"
        from textual.widgets import Input

        from advisor.tui.app import AdvisorApp

        Input.cursor_blink._default = False  # type: ignore[attr-defined]
        app = AdvisorApp(lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await app.screen.ask("how do I share one GPU between several pods?")  # type: ignore[attr-defined]
            await pilot.pause()
            field = app.screen.query_one("#question", Input)
            field.value = "spot inst"
            await app.workers.wait_for_complete()
            await pilot.pause(0.2)
            (ROOT / "docs").mkdir(exist_ok=True)
            app.save_screenshot("screenshot.svg", path=str(ROOT / "docs"))


if __name__ == "__main__":
    asyncio.run(main())
