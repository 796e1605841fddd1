"""A batch's rows (docs/reference/commands.md "runvil batch"), read from DATA by its extension:
`.jsonl` (one JSON object a line), `.csv` (a header row), anything else
plain text (one input a line, empty lines skipped).

The file is streamed: `read_rows` yields one `Row` at a time, so a data set
of any size is never held in memory. `check_rows_and` reads it once before any
row runs and raises `BadRow` naming the first line that cannot be read (it
keeps only the ids, to find a duplicate).
"""

from __future__ import annotations

import csv
import json
import os
from typing import Iterator

from ...structs import Struct
from ..termtext import valid_utf8

NOT_JSON = "not a JSON object: {detail}"
NOT_AN_OBJECT = "a row must be a JSON object, got {kind}"
NO_INPUT = "the row has no `{column}`"
NO_INPUT_COLUMN = "the header has no column `{column}`"
BAD_ID = "the id must be a string or a whole number, got {raw}"
DUPLICATE_ID = "the id {id} is already the id of line {first}"
SHORT_ROW = "the row has {got} fields; the header has {want}"
LONG_ROW = "the row has {got} fields; the header has only {want}"
NOT_UTF8 = "the line is not valid UTF-8"
EMPTY_CSV = "the file has no header row"


class BadRow(Exception):
    """A row that cannot be read: a usage error naming its file and line."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.line = line


class Row(Struct, frozen=True):
    id: str | int
    input: str
    metadata: dict
    line: int


def data_format(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    return {".jsonl": "jsonl", ".csv": "csv"}.get(ext, "text")


def read_rows(path: str, input_column: str = "input") -> Iterator[Row]:
    """The rows of DATA in file order. Raises BadRow for a row that cannot
    be read and OSError for a file that cannot be."""
    kind = data_format(path)
    if kind == "jsonl":
        return _jsonl_rows(path, input_column)
    if kind == "csv":
        return _csv_rows(path, input_column)
    return _text_rows(path)


def check_rows_and(path: str, input_column: str, state_of) -> dict:
    """Reads every row once, before any runs: raises BadRow at the first
    bad one (a duplicate id included) and OSError when the file cannot be
    read; returns how many rows `state_of(row)` gave each answer."""
    first_line: dict = {}
    counts: dict = {}
    for row in read_rows(path, input_column):
        key = _id_key(row.id)
        if key in first_line:
            raise BadRow(path, row.line, DUPLICATE_ID.format(id=json.dumps(row.id, ensure_ascii=False),
                                                             first=first_line[key]))
        first_line[key] = row.line
        state = state_of(row)
        counts[state] = counts.get(state, 0) + 1
    return counts


def _id_key(row_id) -> str:
    """Ids as the database stores them (text): `7` and `"7"` are one id."""
    return str(row_id)


def _lines(path: str) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            yield n, raw


def _decoded(path: str, n: int, raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRow(path, n, NOT_UTF8) from None
    if n == 1 and text.startswith("\ufeff"):
        text = text[1:]
    return text.rstrip("\r\n")


def _text_rows(path: str) -> Iterator[Row]:
    for n, raw in _lines(path):
        text = _decoded(path, n, raw)
        if text.strip():
            yield Row(id=n, input=text, metadata={}, line=n)


def _jsonl_rows(path: str, input_column: str) -> Iterator[Row]:
    for n, raw in _lines(path):
        text = _decoded(path, n, raw)
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError as e:
            raise BadRow(path, n, NOT_JSON.format(detail=getattr(e, "msg", str(e)))) from None
        except RecursionError:
            raise BadRow(path, n, NOT_JSON.format(detail="nested too deeply")) from None
        if not isinstance(obj, dict):
            raise BadRow(path, n, NOT_AN_OBJECT.format(kind=_json_kind(obj)))
        if input_column not in obj:
            raise BadRow(path, n, NO_INPUT.format(column=input_column))
        value = obj[input_column]
        input_text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        row_id = _row_id(path, n, obj["id"]) if "id" in obj else n
        meta = {k: v for k, v in obj.items() if k not in (input_column, "id")}
        if "\\u" in text:  # a lone `\ud800` escape becomes U+FFFD: text SQLite can store
            input_text = valid_utf8(input_text)
            row_id = valid_utf8(row_id) if isinstance(row_id, str) else row_id
            meta = json.loads(valid_utf8(json.dumps(meta, ensure_ascii=False)))
        yield Row(id=row_id, input=input_text, metadata=meta, line=n)


def _row_id(path: str, n: int, value):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BadRow(path, n, BAD_ID.format(raw=json.dumps(value, ensure_ascii=False)[:60]))
    return value


def _json_kind(v) -> str:
    if isinstance(v, list):
        return "an array"
    if isinstance(v, str):
        return "a string"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    return "a number"


class _LineCounter:
    """The lines of a binary file, decoded, counted as csv reads them: a
    quoted field may span lines, and a row is named by its first line."""

    def __init__(self, path: str, f):
        self.path, self.f, self.line = path, f, 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        raw = self.f.readline()
        if not raw:
            raise StopIteration
        self.line += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRow(self.path, self.line, NOT_UTF8) from None
        if self.line == 1 and text.startswith("\ufeff"):
            text = text[1:]
        return text


def _csv_rows(path: str, input_column: str) -> Iterator[Row]:
    with open(path, "rb") as f:
        lines = _LineCounter(path, f)
        reader = csv.reader(lines)
        try:
            header = next(reader)
        except StopIteration:
            raise BadRow(path, 1, EMPTY_CSV) from None
        except csv.Error as e:
            raise BadRow(path, lines.line, str(e)) from None
        if input_column not in header:
            raise BadRow(path, 1, NO_INPUT_COLUMN.format(column=input_column))
        col = header.index(input_column)
        id_col = header.index("id") if "id" in header and input_column != "id" else None
        others = [(i, h) for i, h in enumerate(header) if i not in (col, id_col)]
        while True:
            start = lines.line + 1
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise BadRow(path, start, str(e)) from None
            if not fields or (len(fields) == 1 and not fields[0].strip() and len(header) > 1):
                continue  # an empty line
            if len(fields) < len(header):
                raise BadRow(path, start, SHORT_ROW.format(got=len(fields), want=len(header)))
            if len(fields) > len(header):
                raise BadRow(path, start, LONG_ROW.format(got=len(fields), want=len(header)))
            row_id = fields[id_col] if id_col is not None and fields[id_col] != "" else start
            yield Row(id=row_id, input=fields[col], metadata={h: fields[i] for i, h in others}, line=start)


def open_check(path: str) -> None:
    """Raises OSError when DATA cannot be opened (before any reading)."""
    with open(path, "rb"):
        pass
