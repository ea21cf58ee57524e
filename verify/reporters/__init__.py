"""Reporters: each turns the one report document of :func:`verify.report.aggregate` into one format.

Like coverage.py's HTML, XML and JSON reporters, which all read one data file, every reporter here reads
the same document ``{"claims", "beyond", "summary", "severity", "headline"}`` and nothing else (no second
pass over the raw pytest records):

* :mod:`~verify.reporters.terminal` - the plain-text table and the verdict summary (``verify report``, the
  pytest plugin's terminal summary);
* :mod:`~verify.reporters.markdown` - Markdown (``--markdown``);
* :mod:`~verify.reporters.json` - the document itself (``--json``), which ``--compare``, ``verify report
  --from-json`` (every other format rendered from a saved report, nothing run) and ``verify errata --from-json``
  read back;
* :mod:`~verify.reporters.compare` - verdict, severity and scale changes between two documents (``--compare``);
* :mod:`~verify.reporters.html` - one self-contained HTML page with figures and formulas (``--html``);
* :mod:`~verify.reporters.errata` - per-paper errata in LaTeX or Markdown (``verify errata``, ``verify report
  --errata-latex``).

Shared short forms (:mod:`~verify.reporters._common`): the one-sentence finding of a refutation, the deciding numbers
on one line, short counterexample tables (4 significant digits); the JSON keeps every digit.

Adding a format means adding one module here.
"""
