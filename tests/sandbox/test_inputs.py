"""Input checks: file names, sizes, timeouts and labels, before anything reaches Docker."""

from __future__ import annotations

import pytest

from sandbox import SandboxInputError, SandboxSettings
from sandbox.inputs import check_inputs, effective_timeout
from sandbox.labels import check_label, label_filters

SETTINGS = SandboxSettings(max_input_bytes=2048, timeout_s=5)


@pytest.mark.parametrize("name", ["", "/abs", "../up", "a/../b", "a//b", ".", "x\x00"])
def test_bad_file_names_are_refused(name: str) -> None:
    with pytest.raises(SandboxInputError, match="relative path"):
        check_inputs("", {name: b""}, SETTINGS)


def test_nested_names_are_fine_but_a_file_cannot_be_a_directory() -> None:
    check_inputs("", {"data/a.csv": b"1", "data/b.csv": b"2"}, SETTINGS)
    with pytest.raises(SandboxInputError, match="needs a directory"):
        check_inputs("", {"data": b"1", "data/b.csv": b"2"}, SETTINGS)


def test_size_cap_counts_code_and_files() -> None:
    check_inputs("x" * 1000, {"a": b"y" * 1000}, SETTINGS)
    with pytest.raises(SandboxInputError, match="max_input_bytes=2,048"):
        check_inputs("x" * 1000, {"a": b"y" * 1049}, SETTINGS)


def test_file_content_must_be_bytes() -> None:
    with pytest.raises(SandboxInputError, match="must be bytes"):
        check_inputs("", {"a": "text"}, SETTINGS)  # type: ignore[dict-item]


def test_timeout_defaults_to_and_never_exceeds_the_settings() -> None:
    assert effective_timeout(None, SETTINGS) == 5
    assert effective_timeout(2, SETTINGS) == 2
    assert effective_timeout(60, SETTINGS) == 5
    with pytest.raises(SandboxInputError, match="positive"):
        effective_timeout(0, SETTINGS)


def test_labels() -> None:
    assert check_label("run-2024_01.x") == "run-2024_01.x"
    for bad in ("", "a b", "x" * 129, "a=b"):
        with pytest.raises(SandboxInputError):
            check_label(bad)
    assert label_filters("r1") == ["org.society.sandbox=1", "org.society.run=r1"]


def test_settings_refuse_root_and_names() -> None:
    with pytest.raises(ValueError, match="not be root"):
        SandboxSettings(user="0:0")
    with pytest.raises(ValueError, match="numeric"):
        SandboxSettings(user="nobody")
    assert (SandboxSettings().uid, SandboxSettings().gid) == (65534, 65534)
