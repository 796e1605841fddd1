"""What `runvil conformance` reports: lines as cases end (or a progress bar
on a terminal), then a pass/total table per section and per folder and the
closing `N passed, N failed`; the same results as JUnit XML and as JSON.

Each case ends as one of: `pass`; `fail` (fields differ); `error` (no JSON
object: the command crashed, printed something else or was stopped);
`xfail` and `xpass` (a case listed in --expect-fail that failed, or
passed); `skip` (left out by --skip-features or --skip).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .caserun import Outcome
from .cases import Case


@dataclass
class Result:
    case: Case
    kind: str  # pass, fail, error, xfail, xpass, skip
    outcome: Outcome
    why: str = ""  # for a skipped case: why


#: the columns of the tables, and the kinds each counts
COLUMNS = [("passed", ("pass", "xpass")), ("failed", ("fail",)), ("errors", ("error",)),
           ("expected", ("xfail",)), ("skipped", ("skip",))]


def counts(results: list[Result]) -> dict[str, int]:
    out = {name: sum(r.kind in kinds for r in results) for name, kinds in COLUMNS}
    out["total"] = len(results)
    out["unexpected passes"] = sum(r.kind == "xpass" for r in results)
    return out


def summary_line(c: dict[str, int]) -> str:
    """`N passed, N failed`, then what else happened."""
    extra = [(c["errors"], "errors"), (c["expected"], "expected failures"),
             (c["unexpected passes"], "unexpected passes"), (c["skipped"], "skipped")]
    return ", ".join([f"{c['passed']} passed", f"{c['failed']} failed"] + [f"{n} {what}" for n, what in extra if n])


def grouped(results: list[Result], key) -> dict[str, list[Result]]:
    """Results by key, in the order the keys first appear in the suite."""
    out: dict[str, list[Result]] = {}
    for r in results:
        out.setdefault(key(r.case), []).append(r)
    return out


def tables(results: list[Result], only_failing: bool = False) -> list[str]:
    """The per-section and per-folder tables; a column all zero is left out."""
    total = counts(results)
    cols = ["passed"] + [name for name, _ in COLUMNS[1:] if total[name]] + ["total"]
    lines = []
    for title, key in (("section", lambda c: c.section or "(no section)"), ("folder", lambda c: c.folder)):
        rows = [(name, counts(rs)) for name, rs in grouped(results, key).items()]
        if only_failing:
            rows = [(n, c) for n, c in rows if c["failed"] or c["errors"]]
        if not rows:
            continue
        width = max(len(title), *(len(n) for n, _ in rows))
        lines.append(f"{title:<{width}}  " + "  ".join(f"{c:>8}" for c in cols))
        lines += [f"{n:<{width}}  " + "  ".join(f"{c[col]:>8}" for col in cols) for n, c in rows]
        lines.append("")
    return lines


class Console:
    """What the command prints: a progress bar redrawn in place on a
    terminal, plain lines otherwise (no carriage returns in a pipe)."""

    WIDTH = 30

    def __init__(self, stream, total: int, quiet: bool = False, verbose: bool = False):
        self.stream, self.total = stream, total
        self.quiet, self.verbose = quiet, verbose
        self.bar = stream.isatty() and not verbose
        self.done = self.bad = 0

    def add(self, r: Result) -> None:
        self.done += 1
        self.bad += r.kind in ("fail", "error")
        text = self._line(r)
        if self.bar:
            if text and r.kind != "pass":
                self._write("\r\x1b[K" + text)
            filled = self.WIDTH * self.done // self.total
            self._write(f"\r\x1b[K[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total}"
                        + (f" · {self.bad} failed" if self.bad else ""))
        elif text:
            self._write(text)

    def _line(self, r: Result) -> str:
        case, problems = r.case, r.outcome.problems
        if r.kind in ("fail", "error"):
            word = "FAIL" if r.kind == "fail" else "ERROR"
            if self.quiet:
                return f"{word} {case.id}: {', '.join(m.field for m in problems)}\n"
            return "\n".join([f"{word} {case.id}"] + [line for m in problems for line in m.lines()]) + "\n"
        if r.kind == "xpass":
            return f"XPASS {case.id} (listed as expected to fail, and passed)\n"
        if not self.verbose:
            return ""
        return {"pass": f"PASS {case.id}\n", "xfail": f"XFAIL {case.id}\n",
                "skip": f"SKIP {case.id} ({r.why})\n"}[r.kind]

    def clear(self) -> None:
        """Takes the progress bar off the terminal's last line."""
        if self.bar:
            self._write("\r\x1b[K")

    def end(self, results: list[Result], heading: str | None, unknown_expected: list[str]) -> None:
        self.clear()
        lines = []
        for case_id in unknown_expected:
            lines.append(f"note: --expect-fail names {case_id}, which is not a case of this run")
        several = len({r.case.folder for r in results}) > 1 or len({r.case.section for r in results}) > 1
        if several:
            lines += [""] + tables(results, only_failing=self.quiet)
        if heading:
            lines.append(heading)
        lines.append(summary_line(counts(results)))
        self._write("\n".join(lines) + "\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


# ------------------------------------------------------------------ files


def write_junit(path: str, results: list[Result], suite: str | None = None) -> None:
    """JUnit XML: one testsuite per folder, one testcase per case
    (classname its file, name its name, its section, reference anchor and
    features as properties); fields that differ are a failure, a crash or a
    stop an error, a skipped or expected failure a skipped."""
    import xml.etree.ElementTree as ET

    def totals(rs):
        c = counts(rs)
        return {"tests": str(c["total"]), "failures": str(c["failed"]), "errors": str(c["errors"]),
                "skipped": str(c["skipped"] + c["expected"]),
                "time": f"{sum(r.outcome.seconds for r in rs):.3f}"}

    root = ET.Element("testsuites", name=_xml_text(suite or "runvil conformance"), **totals(results))
    for folder, rs in grouped(results, lambda c: c.folder).items():
        el = ET.SubElement(root, "testsuite", name=_xml_text(folder), **totals(rs))
        for r in rs:
            _junit_case(ET, el, r)
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _junit_case(ET, suite, r: Result) -> None:
    case, problems = r.case, r.outcome.problems
    tc = ET.SubElement(suite, "testcase", classname=_xml_text(case.group), name=_xml_text(case.name),
                       time=f"{r.outcome.seconds:.3f}")
    props = ET.SubElement(tc, "properties")
    for name, value in (("section", case.section), ("reference", case.reference),
                        ("features", ",".join(case.features))):
        if value:
            ET.SubElement(props, "property", name=name, value=_xml_text(value))
    text = _xml_text("\n".join(line for m in problems for line in m.lines()))
    if r.kind == "fail":
        ET.SubElement(tc, "failure", message=_xml_text(f"differs: {', '.join(m.field for m in problems)}")).text = text
    elif r.kind == "error":
        ET.SubElement(tc, "error", message=_xml_text(error_summary(r.outcome))).text = text
    elif r.kind == "xfail":
        ET.SubElement(tc, "skipped", message="expected to fail (--expect-fail)").text = text
    elif r.kind == "skip":
        ET.SubElement(tc, "skipped", message=_xml_text(r.why))
    elif r.kind == "xpass":
        ET.SubElement(tc, "system-out").text = "listed as expected to fail (--expect-fail), and passed"


def error_summary(outcome: Outcome) -> str:
    """One line for a case that printed no JSON object: stopped or crashed."""
    detail = outcome.problems[0].got if outcome.problems else ""
    m = re.search(r"\(stopped after ([\d.]+) seconds\)", str(detail))
    if m:
        return f"stopped after {m.group(1)} seconds"
    m = re.search(r"--- stderr \((exit status -?\d+)\) ---", str(detail))
    return f"no JSON object on stdout ({m.group(1) if m else 'crashed'})"


def json_report(results: list[Result], info: dict, implementation: str, jobs: int, seconds: float) -> dict:
    """The whole run as data: the suite's version, totals, the tables, and
    each case with its outcome and the fields that differ."""
    from .expect import ABSENT

    def shown(v):
        return "(absent)" if v is ABSENT else v

    def rows(key):
        return [{"name": name, **counts(rs)} for name, rs in grouped(results, key).items()]

    return {
        "suite": info.get("name"), "version": info.get("version"), "implementation": implementation,
        "jobs": jobs, "seconds": round(seconds, 3), "totals": counts(results),
        "sections": rows(lambda c: c.section or "(no section)"), "folders": rows(lambda c: c.folder),
        "cases": [{"id": r.case.id, "file": r.case.group, "name": r.case.name, "section": r.case.section or None,
                   "reference": r.case.reference, "features": list(r.case.features),
                   "outcome": r.kind, "seconds": round(r.outcome.seconds, 3), "why": r.why or None,
                   "differs": [{"field": m.field, "want": shown(m.want), "got": shown(m.got), "note": m.note}
                               for m in r.outcome.problems]}
                  for r in results],
    }


def write_json_report(path: str, report: dict) -> None:
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        json.dump(report, f, ensure_ascii=False, indent=1)
        f.write("\n")


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    """The text with the characters XML 1.0 cannot hold written as escapes."""
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
