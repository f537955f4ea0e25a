"""Budgets: the guard's reservations before spending, exact call limits."""

from __future__ import annotations

import asyncio

import pytest

from roles.budget import BudgetGuard, BudgetSettings, Spend
from roles.errors import BudgetExceeded


async def test_a_call_beside_calls_in_flight_waits_for_them() -> None:
    guard = BudgetGuard(BudgetSettings(calls=2))
    a = await guard.hold_call(10, 0, 0)
    b = await guard.hold_call(10, 0, 0)
    third = asyncio.ensure_future(guard.hold_call(10, 0, 0))
    await asyncio.sleep(0)  # let it run: it waits, both places are in flight
    assert not third.done()
    await guard.release(a)  # a call that never ran gives its place back...
    assert (await asyncio.wait_for(third, 10)).calls == 1  # ...and the waiting one takes it
    fourth = asyncio.ensure_future(guard.hold_call(10, 0, 0))
    await asyncio.sleep(0)
    assert not fourth.done()
    await guard.settle_call(b, 10, 5, 0.0)  # one place used: the fourth can still fit...
    assert not fourth.done()
    await guard.settle_call(b, 10, 5, 0.0)  # ...until both are used: refused, not waiting
    with pytest.raises(BudgetExceeded, match="calls=2"):
        await asyncio.wait_for(fourth, 10)


async def test_a_call_that_waits_too_long_is_refused() -> None:
    guard = BudgetGuard(BudgetSettings(calls=1), patience_s=0.05)
    await guard.hold_call(10, 0, 0)
    with pytest.raises(BudgetExceeded, match="calls=1"):
        await guard.hold_call(10, 0, 0)


async def test_tokens_reserve_the_prompt_and_the_largest_answer_seen() -> None:
    guard = BudgetGuard(BudgetSettings(tokens=300, calls=None))
    held = await guard.hold_call(100, 0, 0)
    await guard.settle_call(held, 100, 80, 0.0)
    with pytest.raises(BudgetExceeded) as info:
        await guard.hold_call(150, 0, 0)  # 180 used + 150 + 80 > 300
    assert "tokens=300" in str(info.value)
    assert str(info.value).startswith("budget exhausted: ")
    await guard.hold_call(30, 0, 0)  # 180 + 30 + 80 = 290 fits


async def test_cost_and_sandbox_seconds() -> None:
    guard = BudgetGuard(BudgetSettings(cost=0.01, sandbox_s=10, calls=None))
    with pytest.raises(BudgetExceeded, match="cost"):
        await guard.hold_call(20_000, 1.0, 1.0)  # 0.02 USD for the prompt alone
    held = await guard.hold_sandbox(6)
    assert guard.attempt(Spend(sandbox_s=6)) is None  # fits once the first one is done
    await guard.release(held)
    await guard.add_sandbox(5.5)
    with pytest.raises(BudgetExceeded):
        await guard.hold_sandbox(6)
    await guard.hold_sandbox(4)
