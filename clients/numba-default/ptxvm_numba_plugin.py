"""pytest plugin for running numba-cuda's own test modules from its installed wheel.

numba-cuda's test classes use a class fixture, ``initialize_from_pytest_config``, that its
source tree defines in a top-level ``conftest.py`` which the wheel does not ship; this plugin
provides it (``run.sh`` loads it with ``-p ptxvm_numba_plugin``).
"""

import pytest


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    # The only setting the fixture carries: whether failing FileCheck tests dump reproducers.
    request.cls._dump_failed_filechecks = False
