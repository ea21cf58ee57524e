"""What every progress bar of the package shares: its width on the terminal it draws on.

tqdm sizes a bar to the terminal on its stream. A pseudo-terminal opened without a size (``script``, CI runners,
``docker exec -t``, an IDE's console) reports 0 columns and 0 rows; tqdm then hides the bar altogether (a bar at
row 0 of a screen of 0 rows is off screen), so a long command looked hung. Such a terminal gets 100 columns and 24
rows instead; a terminal that states its size keeps tqdm's own resizing.
"""

from __future__ import annotations

import os
import sys

__all__ = ["bar_width"]


def bar_width(stream=None) -> dict:
    """tqdm's size arguments for a bar on ``stream`` (default stderr): ``{"dynamic_ncols": True}`` when the terminal
    states its size, else ``{"ncols": 100, "nrows": 24}`` (a pipe, a file, a pseudo-terminal of size 0)."""
    stream = sys.stderr if stream is None else stream
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        size = os.terminal_size((0, 0))
    return {"dynamic_ncols": True} if size.columns > 0 and size.lines > 0 else {"ncols": 100, "nrows": 24}
