"""Reporters: each turns the one report document of :func:`verify.report.aggregate` into one format.

Like coverage.py's HTML, XML and JSON reporters, which all read one data file, every reporter here reads
the same document ``{"claims", "beyond", "summary", "severity", "headline"}`` (with ``formulas`` and
``figure_data`` when the run wrote them: :mod:`verify.figure_data`) and nothing else (no second pass over the raw
pytest records, no computation: what a page shows was computed when the document was built):

* :mod:`~verify.reporters.terminal` - the plain-text table and the verdict summary (``verify report``, the
  pytest plugin's terminal summary);
* :mod:`~verify.reporters.markdown` - Markdown (``--markdown``);
* :mod:`~verify.reporters.json` - the document itself (``--json``), which ``--compare``, ``verify report
  --from-json`` (every other format rendered from a saved report, nothing run) and ``verify errata --from-json``
  read back;
* :mod:`~verify.reporters.compare` - verdict, severity and scale changes between two documents (``--compare``);
* :mod:`~verify.reporters.html` - one self-contained HTML page with figures and formulas (``--html``);
* :mod:`~verify.reporters.errata` - a letter to each paper's authors in LaTeX or Markdown (``verify errata``,
  ``verify report --errata-latex``); the papers' content it lays out is :mod:`verify.erratum_texts`.

Shared short forms (:mod:`~verify.reporters._common`): the one-sentence finding of a refutation, the deciding numbers
on one line, short counterexample tables (4 significant digits); the JSON keeps every digit.

Adding a format means adding one module here.
"""
