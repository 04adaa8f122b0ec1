"""pytest plugin for the numba-cuda client tier (loaded by run.py with ``-p``).

* Provides what numba-cuda's test suite expects from the conftest.py of its source tree,
  which the wheel does not ship: the class fixture ``initialize_from_pytest_config`` and
  the option ``--dump-failed-filechecks``.
* Keeps only the tests named in the list file (``--ptxvm-list``): run.py passes whole
  modules to pytest and this plugin deselects every item that is not listed, so a listed id
  that no longer exists shows up as missing instead of aborting the collection.
* Writes one JSON line per test phase result to ``--ptxvm-results`` as soon as it is known
  (the supervisor in run.py reads it even when this process dies).
* ``--ptxvm-timeout S``: a test still running after S seconds dumps every thread's Python
  stack to stderr and ends the process (faulthandler, so it also works while the main
  thread waits inside the driver).

Test ids are canonical and location-independent:
``numba.cuda.tests.cudapy.test_atomics::TestCudaAtomics::test_atomic_add`` for numba-cuda's
own tests (usable as ``pytest --pyargs`` arguments), ``clients/numba/test_x.py::test_y`` for
this directory's tests (relative to the repository root).
"""

import faulthandler
import json
import os
import sys
import time

import pytest

_THIS_DIR = os.path.dirname(os.path.abspath(__file__))
_REPO_ROOT = os.path.dirname(os.path.dirname(_THIS_DIR))


def pytest_addoption(parser):
    # The option numba-cuda's conftest.py defines (read by CUDATestCase on FileCheck failures).
    parser.addoption(
        "--dump-failed-filechecks",
        action="store_true",
        help="Dump reproducers for FileCheck tests that fail (numba-cuda option).",
    )
    g = parser.getgroup("ptxvm")
    g.addoption("--ptxvm-list", default=None, help="file of test ids to keep")
    g.addoption("--ptxvm-results", default=None, help="JSON-lines result file")
    g.addoption("--ptxvm-timeout", type=float, default=0, help="per-test timeout (s)")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    """The fixture numba-cuda's CUDATestCase asks for with usefixtures."""
    request.cls._dump_failed_filechecks = request.config.getoption(
        "dump_failed_filechecks"
    )


def canonical_id(item):
    """The location-independent id of a collected test item."""
    path = os.path.abspath(str(item.path))
    parts = item.nodeid.split("::")[1:]
    marker = os.sep + os.path.join("numba", "cuda", "tests") + os.sep
    k = path.find(marker)
    if k >= 0:
        rel = path[k + 1 :]
        mod = rel[: -len(".py")].replace(os.sep, ".")
    else:
        mod = os.path.relpath(path, _REPO_ROOT).replace(os.sep, "/")
    return "::".join([mod] + parts)


def read_list(path):
    ids = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                ids.append(line)
    return ids


class _Results:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1) if path else None

    def write(self, **rec):
        if self.f:
            self.f.write(json.dumps(rec) + "\n")
            self.f.flush()


_STATE = {}


def pytest_configure(config):
    config._ptxvm_results = _Results(config.getoption("ptxvm_results"))
    _STATE["results"] = config._ptxvm_results
    lst = config.getoption("ptxvm_list")
    config._ptxvm_keep = set(read_list(lst)) if lst else None


def _exists(arg):
    """Whether a collection argument names a module or file that exists."""
    if os.path.exists(arg.split("::", 1)[0]):
        return True
    import importlib.util

    try:
        return importlib.util.find_spec(arg.split("::", 1)[0]) is not None
    except (ImportError, ValueError, AttributeError):
        return False


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    # pytest stops the whole session at a module it cannot find; leave such modules out
    # instead (their listed tests are then reported missing by run.py).
    args = session.config.args
    gone = [a for a in args if not _exists(a)]
    for a in gone:
        sys.stderr.write(f"ptxvm-numba: no module or file {a}: its tests are missing\n")
        args.remove(a)


def pytest_collection_modifyitems(session, config, items):
    keep = config._ptxvm_keep
    selected, deselected = [], []
    for item in items:
        cid = canonical_id(item)
        item._ptxvm_id = cid
        (selected if keep is None or cid in keep else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
    for item in selected:
        config._ptxvm_results.write(event="collected", id=item._ptxvm_id)


def pytest_sessionfinish(session, exitstatus):
    # Tells run.py that this process ended its session normally (it was not killed).
    _STATE["results"].write(event="finished", status=int(exitstatus))


def pytest_collectreport(report):
    if report.failed:
        # A module that cannot be imported: its tests will be reported missing.
        sys.stderr.write(f"ptxvm-numba: collection error in {report.nodeid}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    config = item.config
    timeout = config.getoption("ptxvm_timeout")
    config._ptxvm_results.write(event="start", id=item._ptxvm_id, t=time.time())
    if timeout > 0:
        faulthandler.dump_traceback_later(timeout, exit=True)
    try:
        yield
    finally:
        if timeout > 0:
            faulthandler.cancel_dump_traceback_later()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result()._ptxvm_id = getattr(item, "_ptxvm_id", None)


def pytest_runtest_logreport(report):
    # One record per phase (setup, call, teardown); run.py combines them.
    rec = dict(
        event="report",
        id=getattr(report, "_ptxvm_id", None),
        when=report.when,
        outcome=report.outcome,
        duration=report.duration,
        wasxfail=hasattr(report, "wasxfail"),
    )
    if report.failed:
        rec["longrepr"] = str(report.longrepr)[-4000:]
    elif report.skipped and isinstance(report.longrepr, tuple):
        rec["longrepr"] = str(report.longrepr[2])
    _STATE["results"].write(**rec)
