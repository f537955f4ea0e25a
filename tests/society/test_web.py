"""`society web` in a real browser (Playwright driving Debian's Chromium): the page of a
live `scenarios/human.yaml` run shows the graph and the pending plan approval; approving
and answering from the page moves the run to success, signed by the person's own name;
the page of the finished run (read from its log) shows its tasks and spend, read-only."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bus.logfile import read_jsonl
from bus.payloads import Answer
from tests.conftest import require

from .conftest import ROOT

pytestmark = [pytest.mark.nats, pytest.mark.timeout(180)]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(os.environ.get("SOCIETY_TEST_ARTIFACTS", ROOT / ".society" / "test-artifacts"))


@pytest.fixture(autouse=True)
def _artifacts_folder() -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)


class Proc:
    """A CLI process whose output lines can be waited for."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self._more = asyncio.Condition()
        assert proc.stdout is not None
        self._reader = asyncio.ensure_future(self._read(proc.stdout))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            async with self._more:
                self.lines.append(raw.decode("utf-8", "replace").rstrip())
                self._more.notify_all()
        async with self._more:
            self.lines.append("<eof>")
            self._more.notify_all()

    async def line_with(self, text: str, timeout: float = 60) -> str:
        async with asyncio.timeout(timeout), self._more:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                if "<eof>" in self.lines:
                    raise AssertionError(f"{text!r} never came:\n" + "\n".join(self.lines[-30:]))
                await self._more.wait()

    async def stop(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        await self._reader


@contextlib.asynccontextmanager
async def cli(*args: str) -> AsyncIterator[Proc]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "society.cli", *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )  # fmt: skip
    p = Proc(proc)
    try:
        yield p
    finally:
        await p.stop()


@contextlib.asynccontextmanager
async def web(runs: Path) -> AsyncIterator[tuple[str, str]]:
    """A `society web` of ``runs``; yields its address and the owner's sign-in link."""
    async with cli("web", "--runs-dir", str(runs), "--port", "0", "--name", "alice") as proc:
        said = await proc.line_with("society web: http://")
        link = await proc.line_with("sign in as alice (once, this link only): ")
        yield said.split()[2].rstrip("/"), link.split(": ", 1)[1].strip()


async def test_a_person_approves_and_answers_from_the_browser(tmp_path: Path) -> None:
    require(CHROMIUM is not None, "no Chromium (scripts/setup dev installs Debian's chromium)")
    from playwright.async_api import async_playwright, expect

    runs = tmp_path / "runs"
    scenario = ROOT / "scenarios" / "human.yaml"
    async with (
        cli("run", str(scenario), "--runs-dir", str(runs)) as run,
        async_playwright() as pw,
    ):
        attach = await run.line_with("take part: society attach ")
        run_id = attach.split("society attach ")[1].split()[0]
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            async with web(runs) as (url, sign_in):
                page = await browser.new_page(viewport={"width": 1280, "height": 1000})
                await page.goto(sign_in)  # as the README says: the link society web printed
                await expect(page.locator("#me")).to_contain_text("Signed in as alice")
                await page.goto(f"{url}/runs/{run_id}")
                await expect(page.locator("#who")).to_contain_text("You are alice")
                approval = page.locator('.q[data-question="#1"]')
                await expect(approval).to_contain_text("plan approval", timeout=60_000)
                await expect(approval).to_contain_text("Approve plan 1")
                await expect(page.locator('#graph g.task[data-task="sieve"]')).to_have_count(1)
                await expect(page.locator("#graph line")).to_have_count(1)  # define → sieve
                await page.screenshot(path=str(ARTIFACTS / "web-plan-approval.png"), full_page=True)
                await approval.get_by_role("button", name="approve").click()
                await expect(page.locator("#said")).to_contain_text("sent as human/alice")
                question = page.locator('.q[data-question="#2"]')
                await expect(question).to_contain_text("Eratosthenes or Atkin", timeout=60_000)
                await question.get_by_label("text for #2").fill("Atkin, please")
                await question.get_by_role("button", name="answer").click()
                await expect(page.locator("#status")).to_have_text("succeeded", timeout=60_000)
                await expect(page.locator("#final")).to_contain_text("sieve of Atkin")
                await page.screenshot(path=str(ARTIFACTS / "web-live-run.png"), full_page=True)
            await asyncio.wait_for(run.proc.wait(), 60)
            assert run.proc.returncode == 0, "\n".join(run.lines[-30:])
            log = read_jsonl(runs / run_id / "log.jsonl").records
            answers = [
                r.envelope
                for r in log
                if r.envelope is not None and isinstance(r.envelope.payload, Answer)
            ]
            assert [(a.sender, a.payload.by) for a in answers] == [  # type: ignore[union-attr]
                ("human/alice", "alice"),
                ("human/alice", "alice"),
            ]
            assert answers[1].payload.text == "Atkin, please"  # type: ignore[union-attr]

            async with web(runs) as (url, _):  # a new server: the finished run is read from its log
                page = await browser.new_page()
                await page.goto(f"{url}/")
                await expect(page.locator("#runs")).to_contain_text(run_id)
                await page.goto(f"{url}/runs/{run_id}")
                await expect(page.locator("#status")).to_have_text("succeeded")
                rows = page.locator("#tasks tbody tr")
                await expect(rows).to_have_count(2)
                await expect(page.locator('#tasks tr[data-task="sieve"]')).to_contain_text("done")
                await expect(page.locator("#budgets")).to_contain_text("calls")
                await expect(page.locator("#readonly")).to_be_visible()
                await expect(page.locator("#controls")).to_be_hidden()
                await page.screenshot(path=str(ARTIFACTS / "web-finished-run.png"), full_page=True)
        finally:
            await browser.close()


HOSTILE = """
name: hostile
goal: {text: "Report <img src=x onerror=window.__pwned=1> as text."}
models: {default: {provider: scripted}}
roles: {planner: {one_task_first: false}}  # the planner's markup is shown too
budgets: {wall_s: 120}
script:
  planner:
    - answer:
        success_criteria: ["<img src=x onerror=window.__pwned=2>"]
        tasks:
          - {id: show, role: coder, description: "Write <img src=x onerror=window.__pwned=3> down.", outputs: [answer]}
  coder:
    - instructions: without seeing it  # the verifier's statement
      answer: {kind: text}
    - match: independent check of a teammate  # the second candidate
      answer: |
        ```python
        print("<img src=x onerror=window.__pwned=" + str(5) + ">")
        ```
    - answer: |
        ```python
        import json
        open("<img src=x onerror=window.__pwned=4>.txt", "w").write("x")
        json.dump({"answer": "<img src=x onerror=window.__pwned=%d>" % 5}, open("outputs.json", "w"))
        ```
"""


@pytest.mark.docker
async def test_markup_in_a_run_is_shown_as_text_and_never_runs(tmp_path: Path) -> None:
    require(CHROMIUM is not None, "no Chromium (scripts/setup dev installs Debian's chromium)")
    from playwright.async_api import async_playwright, expect

    runs = tmp_path / "runs"
    scenario = tmp_path / "hostile.yaml"
    scenario.write_text(HOSTILE)
    async with cli("run", str(scenario), "--runs-dir", str(runs)) as run:
        await asyncio.wait_for(run.proc.wait(), 120)
        assert run.proc.returncode == 0, "\n".join(run.lines[-30:])
    (run_dir,) = runs.glob("hostile-*")
    artifacts = [p.name for p in (run_dir / "artifacts").rglob("*") if p.is_file()]
    assert "<img src=x onerror=window.__pwned=4>.txt" in artifacts
    async with async_playwright() as pw, web(runs) as (url, _):
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{url}/runs/{run_dir.name}")
            await expect(page.locator("#status")).to_have_text("succeeded")
            await expect(page.locator("#goal")).to_contain_text(
                "<img src=x onerror=window.__pwned=1>"
            )
            await expect(page.locator("#final")).to_contain_text(
                "<img src=x onerror=window.__pwned=5>"
            )
            graph = await page.locator("#graph").inner_html()  # the SVG drawn on the server
            assert "<img" not in graph
            await expect(page.locator("#conv")).to_contain_text("window.__pwned=3")  # the task
            # (the artifact's name, pwned=4, is not shown on the page at all)
            assert await page.evaluate("window.__pwned") is None  # no script ran
            assert await page.locator("img").count() == 0  # no element was made from the text
        finally:
            await browser.close()
