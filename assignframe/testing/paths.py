"""Finding the shared data directory (golden vectors, seeds, captures) from any test."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["SHARED_ENV", "shared_path"]

SHARED_ENV = "ASSIGNFRAME_SHARED"


def shared_path(start: str | os.PathLike[str] | None = None) -> Path:
    """The ``shared/`` directory: ``$ASSIGNFRAME_SHARED``, else the first ``shared/`` (holding
    ``golden/``) beside ``start`` or one of its parents (CI: ``<clone>/../shared``).

    Fails loudly instead of letting golden tests skip: a missing directory is a broken checkout.

    :param start: where to begin looking (a test file or directory; default: the working directory)
    :raises FileNotFoundError: nothing found (the message says how to point at it)
    """
    configured = os.environ.get(SHARED_ENV)
    if configured:
        path = Path(configured)
        if not (path / "golden").is_dir():
            raise FileNotFoundError(f"{SHARED_ENV}={configured} has no golden/ directory")
        return path.resolve()
    origin = Path(start or os.getcwd()).resolve()
    for directory in (origin, *origin.parents):
        candidate = directory / "shared"
        if (candidate / "golden").is_dir():
            return candidate
    raise FileNotFoundError(
        f"no shared/ directory (with golden/) beside {origin} or any parent; "
        f"set {SHARED_ENV} to its path"
    )
