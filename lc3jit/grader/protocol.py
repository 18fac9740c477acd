"""Each test of a grading worker, as pytest runs it, less the reports no one reads.

pytest makes a report of each of a test's three phases (setup, call, teardown) and hands
each to every plugin: a test that passes makes two reports of phases that did nothing to
tell, which a worker (no terminal, no report files) only throws away, and which cost a
grader's short test more than its program's run. The worker's protocol runs the same
hooks in the same order, with the same outcomes, and reports the call always, the setup
and teardown when they raised (a failure, a skip, an xfail): whatever a plugin does with
a test's outcome (skips, xfail, the lc3jit records, the session's failure count) it does
as under plain `pytest`. The hook wrappers around the protocol (assertion rewriting's
explanations, faulthandler) still wrap each test.

A directly parametrized argument (`metafunc.parametrize("case", ...)`, `@pytest.mark.parametrize`)
is a fixture whose function asks for `request` to return `request.param`; for it pytest
builds the `request` fixture's definition twice a test, reading a signature each time
(some 8% of a grader's short test). The worker sets such a fixture up itself, with the
value and cache key pytest's own set-up gives it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import pytest
from _pytest.python import get_direct_param_fixture_func
from _pytest.runner import check_interactive_exception, get_reraise_exceptions


class WorkerProtocol:
    """A plugin: pytest_runtest_protocol for a grading worker (registered by it alone)."""

    def __init__(self, config: pytest.Config) -> None:
        self.reraise = get_reraise_exceptions(config)
        self.setup_only = bool(config.getoption("setuponly", False))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool:
        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        has_request = hasattr(item, "_request")
        if has_request and not item._request:  # type: ignore[attr-defined]  # run again: afresh
            item._initrequest()  # type: ignore[attr-defined]
        try:
            if self._phase(item, "setup", ihook.pytest_runtest_setup) and not self.setup_only:
                self._phase(item, "call", ihook.pytest_runtest_call, always=True)
            if item.session.shouldfail or item.session.shouldstop:
                nextitem = None  # everything torn down, so that its errors are reported
            self._phase(item, "teardown", ihook.pytest_runtest_teardown, nextitem=nextitem)
        finally:
            if has_request:  # the test's fixtures' values go, as pytest lets them go
                item._request = False  # type: ignore[attr-defined]
                item.funcargs = None  # type: ignore[attr-defined]
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[object], request: pytest.FixtureRequest
    ) -> object:
        """A direct parameter's value, as pytest's own set-up caches it (see the module's docstring)."""
        if fixturedef.func is not get_direct_param_fixture_func or self.setup_only:
            return None  # --setup-plan and --setup-show show pytest's own set-up
        value = request.param
        fixturedef.cached_result = (value, fixturedef.cache_key(request), None)  # type: ignore[arg-type]
        return value

    def set_up_direct_parameters(self, items: list[pytest.Item]) -> None:
        """Direct parameters' fixtures no longer ask for `request` (pytest_fixture_setup sets
        them up without it): pytest would look the `request` fixture up for nothing before
        each set-up. The definition `request` gets takes no finalizer, so none is lost."""
        if self.setup_only:
            return
        for item in items:
            info = getattr(item, "_fixtureinfo", None)
            for definitions in info.name2fixturedefs.values() if info is not None else ():
                for definition in definitions:
                    if definition.func is get_direct_param_fixture_func:
                        definition.argnames = ()  # type: ignore[misc]

    def _phase(
        self,
        item: pytest.Item,
        when: Literal["setup", "call", "teardown"],
        hook: Callable[..., None],
        always: bool = False,
        **arguments: object,
    ) -> bool:
        """Run a phase; report it if it raised or if always. Did it pass?"""
        call = pytest.CallInfo.from_call(lambda: hook(item=item, **arguments), when, self.reraise)
        if call.excinfo is None and not always:
            return True
        report: pytest.TestReport = item.ihook.pytest_runtest_makereport(item=item, call=call)
        item.ihook.pytest_runtest_logreport(report=report)
        if check_interactive_exception(call, report):
            item.ihook.pytest_exception_interact(node=item, call=call, report=report)
        return report.passed
