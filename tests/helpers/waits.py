"""Waits in tests are for events, never for time: a test that needs something to have happened waits for it to happen.

:data:`HANG_SECONDS` bounds such a wait only so that a hang (the code under test never delivering the event) fails
instead of stalling the run: it is reached by a hang, never by a slow or loaded machine, and no test measures time
with it. Subprocesses get it as their ``timeout=``.
"""

from __future__ import annotations

__all__ = ["HANG_SECONDS"]

HANG_SECONDS = 600.0
"""The bound of a wait for an event that comes unless the code under test hangs (a PCH build's child, a subprocess);
the product's own limit on a detached PCH build (``_pch.BUILD_TIMEOUT_SECONDS``) is the same."""
