"""Imports a program uses and never wrote are added before it runs, and only those that
can mean nothing else."""

from __future__ import annotations

import pytest

from roles.coder.missing_imports import with_imports

pytestmark = pytest.mark.timeout(30)


def test_a_module_used_and_never_imported_is_imported_first() -> None:
    code = 'import json\nday = datetime.date(1969, 7, 20).strftime("%A")\njson.dump({"d": day}, open("o", "w"))\n'
    fixed, added = with_imports(code)
    assert added == ["import datetime"]
    assert fixed == "import datetime\n" + code
    namespace: dict[str, object] = {}
    exec(
        compile(fixed.replace('open("o", "w")', "__import__('io').StringIO()"), "p", "exec"),
        namespace,
    )
    assert namespace["day"] == "Sunday"


@pytest.mark.parametrize(
    "code",
    [
        "import json\njson.dumps(1)\n",  # imported already
        "from datetime import datetime\nprint(datetime(1969, 7, 20))\n",  # a class, not the module
        "json = {'a': 1}\nprint(json.get('a'))\n",  # a variable of that name
        "def f(math):\n    return math.pi\n",  # an argument of that name
        "print(datetime(1969, 7, 20).weekday())\n",  # bare use: which import is meant is unclear
        "x = foo.bar\n",  # not a module
        "from __future__ import annotations\nprint(math.pi)\n",
        "def broken(:\n",
    ],
)
def test_nothing_is_added_where_the_name_could_mean_something_else(code: str) -> None:
    assert with_imports(code) == (code, [])


def test_numpy_and_pandas_aliases_only_where_the_sandbox_has_them() -> None:
    code = "print(np.mean([1, 2]), pd.Series([1]).sum(), math.pi)\n"
    assert with_imports(code)[1] == ["import math"]
    fixed, added = with_imports(code, frozenset({"numpy", "pandas"}))
    assert added == ["import math", "import numpy as np", "import pandas as pd"]
    assert fixed.endswith(code)


def test_a_bare_math_function_never_bound_is_imported_from_math() -> None:
    code = "import math\nx = 10000\nprint(round(x / log(x), 2), sqrt(x), math.pi)\n"
    fixed, added = with_imports(code)
    assert added == ["from math import log, sqrt"]
    namespace: dict[str, object] = {"print": lambda *a: namespace.setdefault("out", a)}
    exec(compile(fixed, "p", "exec"), namespace)
    assert namespace["out"] == (1085.74, 100.0, 3.141592653589793)
    for kept in ("from math import log\nprint(log(2))\n", "def log(x):\n    return x\nlog(1)\n"):
        assert with_imports(kept) == (kept, [])
