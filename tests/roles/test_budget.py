"""Budgets: the guard's reservations before spending, exact call limits."""

from __future__ import annotations

import pytest

from roles.budget import BudgetGuard, BudgetSettings
from roles.errors import BudgetExceeded


def test_calls_limit_counts_calls_in_flight() -> None:
    guard = BudgetGuard(BudgetSettings(calls=2))
    a = guard.reserve_call(10, 0, 0)
    guard.reserve_call(10, 0, 0)
    with pytest.raises(BudgetExceeded, match="calls=2"):
        guard.reserve_call(10, 0, 0)
    guard.release(a)  # a call that never ran gives its place back
    guard.reserve_call(10, 0, 0)


def test_tokens_reserve_the_prompt_and_the_largest_answer_seen() -> None:
    guard = BudgetGuard(BudgetSettings(tokens=300, calls=None))
    held = guard.reserve_call(100, 0, 0)
    guard.settle_call(held, 100, 80, 0.0)
    with pytest.raises(BudgetExceeded) as info:
        guard.reserve_call(150, 0, 0)  # 180 used + 150 + 80 > 300
    assert "tokens=300" in str(info.value)
    assert str(info.value).startswith("budget exhausted: ")
    guard.reserve_call(30, 0, 0)  # 180 + 30 + 80 = 290 fits


def test_cost_and_sandbox_seconds() -> None:
    guard = BudgetGuard(BudgetSettings(cost=0.01, sandbox_s=10, calls=None))
    with pytest.raises(BudgetExceeded, match="cost"):
        guard.reserve_call(20_000, 1.0, 1.0)  # 0.02 USD for the prompt alone
    held = guard.reserve_sandbox(6)
    with pytest.raises(BudgetExceeded, match="sandbox_s"):
        guard.reserve_sandbox(6)
    guard.release(held)
    guard.add_sandbox(5.5)
    with pytest.raises(BudgetExceeded):
        guard.reserve_sandbox(6)
    guard.reserve_sandbox(4)
