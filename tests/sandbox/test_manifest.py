"""The sandbox image's data stack and its manifest, on the real image (scripts/build-sandbox)."""

from __future__ import annotations

import json

import pytest

from sandbox import Sandbox, SandboxSettings
from sandbox.manifest import Manifest, missing_module, missing_module_hint, read_manifest

pytestmark = [pytest.mark.docker, pytest.mark.timeout(120)]

STACK = """
import json
import numpy as np, pandas as pd, scipy.stats, sympy
from dateutil.relativedelta import relativedelta
from datetime import date
m = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
table = pd.read_csv("scores.csv")
x = sympy.symbols("x")
out = {
    "det": round(float(np.linalg.det(m)), 6),
    "mean_by_team": table.groupby("team")["score"].mean().to_dict(),
    "t_p": round(float(scipy.stats.ttest_1samp([1.0, 2.0, 3.0, 4.0], 0).pvalue), 6),
    "roots": sorted(str(r) for r in sympy.solve(x**2 - 5 * x + 6, x)),
    "later": str(date(2024, 1, 31) + relativedelta(months=1)),
}
json.dump(out, open("outputs.json", "w"))
"""

IMPORTABLE = """
import importlib, importlib.metadata as md, json, platform
m = json.loads(open("manifest.json").read())
seen = {"python": platform.python_version(), "libraries": {}, "modules": []}
for module in m["modules"]:
    importlib.import_module(module)
    seen["modules"].append(module)
for dist in md.distributions():
    seen["libraries"][dist.metadata["Name"]] = dist.version
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def manifest() -> Manifest:
    found = read_manifest(SandboxSettings().image)
    assert found is not None, "the sandbox image carries no manifest: run scripts/build-sandbox"
    return found


def test_the_manifest_names_the_data_stack(manifest: Manifest) -> None:
    assert manifest.python.startswith("3.11.")
    for module in ("numpy", "pandas", "scipy", "sympy", "dateutil"):
        assert module in manifest.importable()
    line = manifest.described()
    assert line.startswith(f"Python {manifest.python} with the standard library and ")
    assert f"numpy {manifest.libraries['numpy']}" in line


async def test_a_program_using_the_data_stack_runs_and_writes_its_outputs(
    sandbox: Sandbox,
) -> None:
    csv = b"team,score\nred,3\nblue,5\nred,5\n"
    result = await sandbox.execute(STACK, files={"scores.csv": csv}, timeout_s=60)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.files["outputs.json"])
    assert out == {
        "det": 18.0,
        "mean_by_team": {"blue": 5.0, "red": 4.0},
        "t_p": 0.030466,
        "roots": ["2", "3"],
        "later": "2024-02-29",
    }


async def test_the_manifest_is_what_the_image_can_import(
    sandbox: Sandbox, manifest: Manifest
) -> None:
    result = await sandbox.execute(
        IMPORTABLE, files={"manifest.json": manifest.model_dump_json().encode()}, timeout_s=60
    )
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["python"] == manifest.python
    assert seen["modules"] == list(manifest.modules)
    # every library the manifest names is installed at its version, and nothing else is
    # installed beyond what the base's Python itself carries (pip, setuptools, wheel)
    for name, version in manifest.libraries.items():
        assert seen["libraries"].get(name) == version, name
    extra = set(seen["libraries"]) - set(manifest.libraries)
    assert extra <= {"pip", "setuptools", "wheel"}, extra


async def test_a_missing_module_is_named_with_what_there_is_instead(
    sandbox: Sandbox, manifest: Manifest
) -> None:
    result = await sandbox.execute("import sklearn.linear_model\n")
    assert result.exit_code == 1
    assert missing_module(result.stderr) == "sklearn"
    hint = missing_module_hint(result.stderr, manifest)
    assert "no module 'sklearn'" in hint
    assert "numpy, pandas, scipy, sympy" in hint
    assert f"Python {manifest.python}" in hint


def test_a_failed_import_of_a_present_library_gets_no_hint(manifest: Manifest) -> None:
    stderr = "ModuleNotFoundError: No module named 'numpy.fancy'\n"
    assert missing_module(stderr) == "numpy.fancy"
    assert missing_module_hint(stderr, manifest) == ""
    assert missing_module_hint("NameError: name 'x' is not defined", manifest) == ""
    unknown = missing_module_hint("ModuleNotFoundError: No module named 'numpy'", None)
    assert "no module 'numpy'" in unknown and "standard library" in unknown
