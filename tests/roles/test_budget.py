"""Budgets: the guard's reservations before spending, exact call limits."""

from __future__ import annotations

import pytest

from roles.budget import BudgetGuard, BudgetSettings
from roles.errors import BudgetExceeded


async def test_calls_limit_counts_calls_in_flight() -> None:
    guard = BudgetGuard(BudgetSettings(calls=2))
    a = await guard.hold_call(10, 0, 0)
    await guard.hold_call(10, 0, 0)
    with pytest.raises(BudgetExceeded, match="calls=2"):
        await guard.hold_call(10, 0, 0)
    await guard.release(a)  # a call that never ran gives its place back
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
    with pytest.raises(BudgetExceeded, match="sandbox_s"):
        await guard.hold_sandbox(6)
    await guard.release(held)
    await guard.add_sandbox(5.5)
    with pytest.raises(BudgetExceeded):
        await guard.hold_sandbox(6)
    await guard.hold_sandbox(4)
