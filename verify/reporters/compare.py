"""``verify report --compare OLD.json``: the claims whose verdict, severity or scale moved between two documents,
whether the two come from different environments (library versions, thread setting, the experiments' numerical
path: issue 39), which can move an experiment's numbers without any change of code, and the claims whose check
power (``--power``: mutants killed, survivors, mutants that no longer apply) differs where both documents measured
it."""

from __future__ import annotations

import textwrap

from .._validate import VerifyInputError
from ..claims import BEYOND, CLAIMS

COMPARED = ("verdict", "severity", "scale")


#: the parts of a claim's check power (``row["power"]``, ``verify mutants``) compared
POWER_FIELDS = ("killed", "total", "survivors", "errors")


class Changes(list):
    """The changed claims (a list: empty when no verdict, severity or scale moved) and, in ``environment``, the
    differences of the two documents' environments (:func:`environment_changes`), in ``power`` those of the
    claims' check power (:func:`power_changes`): both are reported beside the changes but are not changes of a
    verdict themselves."""

    environment: list[dict]
    power: list[dict]

    def __init__(self, rows=(), environment=None, power=None):
        super().__init__(rows)
        self.environment = list(environment or [])
        self.power = list(power or [])


def _power_text(power: dict) -> str:
    """``killed 18/19; surviving: a; errors: b`` (an empty part left out)."""
    text = f"killed {power.get('killed')}/{power.get('total')}"
    for key, label in (("survivors", "surviving"), ("errors", "errors")):
        if power.get(key):
            text += f"; {label}: {', '.join(map(str, power[key]))}"
    return text


def power_changes(a: dict, b: dict, order: list) -> list[dict]:
    """``[{"id", "old", "new"}, ...]`` (texts as :func:`_power_text`): the claims of both row maps whose check power
    (:data:`POWER_FIELDS`; an empty list is an absent one) differs, where both documents measured it (a report
    without ``--power`` compares no power), in ``order``."""
    out = []
    for cid in order:
        pa, pb = (a.get(cid) or {}).get("power"), (b.get(cid) or {}).get("power")
        if isinstance(pa, dict) and isinstance(pb, dict) and \
                any((pa.get(k) or None) != (pb.get(k) or None) for k in POWER_FIELDS):
            out.append({"id": cid, "old": _power_text(pa), "new": _power_text(pb)})
    return out


def environment_of(doc: dict) -> dict:
    """A report document's environment as flat ``{name: value}``: its top-level ``environment`` (library versions
    and ``blas_threads``, where the report recorded them) and the numerical path of its experiments (each
    ``emp`` claim's ``evidence["numerics"]``: ``numerics.<field>``; a field on which the experiments of one report
    differ is the sorted list of their values). Torch-free, reads only the document."""
    out: dict = {}
    env = doc.get("environment") if isinstance(doc, dict) else None
    if isinstance(env, dict):
        for key, value in env.items():
            if isinstance(value, dict):
                out.update({f"{key}.{k}": v for k, v in value.items()})
            else:
                out[key] = value
    seen: dict[str, set] = {}
    for row in (doc.get("claims") or []) + (doc.get("beyond") or []):
        num = (row.get("evidence") or {}).get("numerics") if isinstance(row, dict) else None
        if isinstance(num, dict):
            for k, v in num.items():
                if k == "replaced":     # the user's own settings the pin overrode: they changed no number
                    continue
                for kk, vv in (v.items() if isinstance(v, dict) else [(None, v)]):
                    if not isinstance(vv, (dict, list)):
                        seen.setdefault(f"numerics.{k}" + (f".{kk}" if kk else ""), set()).add(vv)
    for key, values in seen.items():
        vals = sorted(values, key=repr)
        out[key] = vals[0] if len(vals) == 1 else vals
    return out


def environment_changes(old: dict, new: dict) -> list[dict]:
    """``[{"field", "old", "new"}, ...]``: the environment entries (:func:`environment_of`) that differ between two
    documents, sorted by name; an entry only one document recorded appears with ``None`` on the other side."""
    a, b = environment_of(old), environment_of(new)
    return [{"field": k, "old": a.get(k), "new": b.get(k)} for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def compare(old: dict, new: dict, paper: str | None = None) -> Changes:
    """Claims whose verdict, severity or scale differ between two report documents (``--json`` output),
    plus claims present in only one of them: ``[{"id", "field", "old", "new"}, ...]`` in registry order, with the
    environments' differences in ``.environment`` and the check power's in ``.power`` (:class:`Changes`).
    ``paper`` restricts both to one paper (a ``--paper`` run against a full earlier report)."""
    def rows(doc):
        if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
            raise VerifyInputError("Argument 'old' must be a report written by 'verify report --json'.")
        return {r["id"]: r for r in doc["claims"] + doc.get("beyond", []) if not paper or r.get("paper") == paper}

    a, b = rows(old), rows(new)
    order = [c.id for c in CLAIMS + BEYOND] + sorted((set(a) | set(b)) - {c.id for c in CLAIMS + BEYOND})
    changes = []
    for cid in order:
        if cid not in a and cid not in b:
            continue
        if cid not in a or cid not in b:
            changes.append({"id": cid, "field": "claim", "old": "present" if cid in a else "absent",
                            "new": "present" if cid in b else "absent"})
            continue
        for key in COMPARED:
            if a[cid].get(key) != b[cid].get(key):
                changes.append({"id": cid, "field": key, "old": a[cid].get(key), "new": b[cid].get(key)})
    return Changes(changes, environment_changes(old, new), power_changes(a, b, order))


def format_changes(changes: list[dict]) -> str:
    env = getattr(changes, "environment", [])
    if not changes:
        lines = ["compare: no verdict, severity or scale changed"]
    else:
        lines = [f"compare: {len(changes)} change(s)"]
        lines += [f"  {c['id']:<22} {c['field']:<9} {c['old']} -> {c['new']}" for c in changes]
    if env:
        lines.append(f"compare: the two reports come from different environments ({len(env)} difference(s)); "
                     "an experiment's numbers may differ for that reason alone")
        lines += [f"  {e['field']:<32} {e['old']} -> {e['new']}" for e in env]
    power = getattr(changes, "power", [])
    if power:
        lines.append(f"compare: check power differs on {len(power)} claim(s) (mutants; not a verdict change)")
        # a claim's survivors and errors can be many names: wrapped to the 100-column terminal, under the texts
        lines += [textwrap.fill(f"  {p['id']:<22} {p['old']} -> {p['new']}", width=100, subsequent_indent=" " * 25,
                                break_on_hyphens=False) for p in power]
    return "\n".join(lines) + "\n"
