"""The LP core (the chain, its back ends' interface, the bounds) imports without CVXPY."""

import subprocess
import sys


def test_lp_core_imports_without_cvxpy() -> None:
    code = (
        "import sys\n"
        "import problems.lp.chain, problems.lp.bounds, problems.lp.backends, problems.solver_stats\n"
        "print(sorted(m for m in sys.modules if m == 'cvxpy' or m.startswith('cvxpy.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
