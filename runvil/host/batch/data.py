"""A batch's rows (docs/reference/commands.md "Batches"), read from DATA by its extension
(or `--format`): `.jsonl` (one JSON object a line), `.csv` (a header row),
anything else plain text (one input a line, empty lines skipped).

DATA is read several times (checked, counted, run, exported), so a file
that cannot be read twice (`-` for standard input, a pipe, `<(cmd)`) is
first copied once into a temporary file (`DataFile`). Each pass streams:
`read_rows` yields one `Row` at a time, and no line or CSV row longer than
a run's input may be (MAX_ROW_BYTES, `run --input-file`'s bound) is ever
read whole, so a data set of any size, or a line of any length, is never
held in memory. `check_rows_and` reads it once before any row runs and
raises `BadRow` naming the first line that cannot be read (it keeps only
the ids, to find a duplicate).
"""

from __future__ import annotations

import csv
import json
import os
import stat
import sys
from typing import Iterator

from ...structs import Struct
from ..runcmd import MAX_INPUT_BYTES
from ..termtext import valid_utf8

#: the most bytes one row may hold: a run's input, as `run --input-file` bounds it
MAX_ROW_BYTES = MAX_INPUT_BYTES
#: the most digits a whole number of a JSONL row may have (Python's own bound on int conversion)
MAX_DIGITS = 4300
FORMATS = ("jsonl", "csv", "text")

NOT_JSON = "not a JSON object: {detail}"
NOT_AN_OBJECT = "a row must be a JSON object, got {kind}"
NO_INPUT = "the row has no `{column}`"
NO_INPUT_COLUMN = ("the header has no column `{column}` (its columns: {columns}); "
                   "--input-column NAME names the column that holds the input")
ROW_TOO_BIG = "the row is more than {limit} bytes, the most a run's input may be"
ID_DIGITS = "the id has {digits} digits; a whole-number id has at most {most} (give a longer one as a string)"
NUMBER_DIGITS = "a number of the row has {digits} digits; a number has at most {most}"
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


class DataFile:
    """DATA as the batch reads it: `path` a regular file that can be read
    again and again, `name` what messages call it, `format` how its rows
    are written. Standard input and pipes are spooled into a temporary
    file, removed by `close`."""

    def __init__(self, name: str, path: str, format: str, spooled: bool = False):
        self.name, self.path, self.format, self.spooled = name, path, format, spooled

    @classmethod
    def open(cls, given: str, format: str | None = None) -> "DataFile":
        """`given` is a path or `-` (standard input). Raises OSError when it
        cannot be read."""
        fmt = format or data_format(given)
        if given == "-":
            if sys.stdin is None:
                raise OSError(0, "there is no standard input", "-")
            return cls._spool("standard input", getattr(sys.stdin, "buffer", sys.stdin), fmt)
        if stat.S_ISREG(os.stat(given).st_mode):
            with open(given, "rb"):  # unreadable: said now, before anything else
                pass
            return cls(given, given, fmt)
        with open(given, "rb") as source:  # a pipe, `<(cmd)`, /dev/stdin: read once
            return cls._spool(given, source, fmt)

    @classmethod
    def _spool(cls, name: str, source, fmt: str) -> "DataFile":
        import shutil  # (not at start-up: a data file is read where it is)
        import tempfile

        fd, path = tempfile.mkstemp(prefix="runvil-data-")
        try:
            with os.fdopen(fd, "wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
        except BaseException:
            os.remove(path)
            raise
        return cls(name, path, fmt, spooled=True)

    def close(self) -> None:
        if self.spooled:
            self.spooled = False
            try:
                os.remove(self.path)
            except OSError:
                pass


def data_format(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    return {".jsonl": "jsonl", ".csv": "csv"}.get(ext, "text")


def read_rows(data: DataFile, input_column: str = "input") -> Iterator[Row]:
    """The rows of DATA in file order. Raises BadRow for a row that cannot
    be read and OSError for a file that cannot be."""
    if data.format == "jsonl":
        return _jsonl_rows(data, input_column)
    if data.format == "csv":
        return _csv_rows(data, input_column)
    return _text_rows(data)


def check_rows_and(data: DataFile, input_column: str, state_of) -> dict:
    """Reads every row once, before any runs: raises BadRow at the first
    bad one (a duplicate id included) and OSError when the file cannot be
    read; returns how many rows `state_of(row)` gave each answer."""
    first_line: dict = {}
    counts: dict = {}
    for row in read_rows(data, input_column):
        key = _id_key(row.id)
        if key in first_line:
            raise BadRow(data.name, row.line, DUPLICATE_ID.format(id=json.dumps(row.id, ensure_ascii=False),
                                                                  first=first_line[key]))
        first_line[key] = row.line
        state = state_of(row)
        counts[state] = counts.get(state, 0) + 1
    return counts


def _id_key(row_id) -> str:
    """Ids as the database stores them (text): `7` and `"7"` are one id."""
    return str(row_id)


def bounded_line(f, name: str, n: int) -> bytes:
    """The next line of a binary file (b"" at its end), read up to one byte
    past the bound: a longer line is a BadRow, never read whole."""
    raw = f.readline(MAX_ROW_BYTES + 2)
    if len(raw.rstrip(b"\r\n")) > MAX_ROW_BYTES:
        raise BadRow(name, n, ROW_TOO_BIG.format(limit=MAX_ROW_BYTES))
    return raw


def _lines(data: DataFile) -> Iterator[tuple[int, bytes]]:
    with open(data.path, "rb") as f:
        n = 1
        while raw := bounded_line(f, data.name, n):
            yield n, raw
            n += 1


def _decoded(name: str, n: int, raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRow(name, n, NOT_UTF8) from None
    if n == 1 and text.startswith("\ufeff"):
        text = text[1:]
    return text.rstrip("\r\n")


def _text_rows(data: DataFile) -> Iterator[Row]:
    for n, raw in _lines(data):
        text = _decoded(data.name, n, raw)
        if text.strip():
            yield Row(id=n, input=text, metadata={}, line=n)


class _Digits(str):
    """A whole number with more digits than Python converts: kept as its
    text only to be named in the row's error."""


def _json_object(name: str, n: int, text: str):
    """The row's JSON value, or BadRow in runvil's words."""
    long: list = []

    def whole(digits: str):
        if len(digits) > MAX_DIGITS + 1 or len(digits.lstrip("-")) > MAX_DIGITS:
            long.append(len(digits.lstrip("-")))
            return _Digits(digits)
        return int(digits)

    try:
        obj = json.loads(text, parse_int=whole)
    except ValueError as e:
        raise BadRow(name, n, NOT_JSON.format(detail=getattr(e, "msg", str(e)))) from None
    except RecursionError:
        raise BadRow(name, n, NOT_JSON.format(detail="nested too deeply")) from None
    if long:
        if isinstance(obj, dict) and isinstance(obj.get("id"), _Digits):
            raise BadRow(name, n, ID_DIGITS.format(digits=len(obj["id"].lstrip("-")), most=MAX_DIGITS))
        raise BadRow(name, n, NUMBER_DIGITS.format(digits=long[0], most=MAX_DIGITS))
    return obj


def _jsonl_rows(data: DataFile, input_column: str) -> Iterator[Row]:
    name = data.name
    for n, raw in _lines(data):
        text = _decoded(name, n, raw)
        if not text.strip():
            continue
        obj = _json_object(name, n, text)
        if not isinstance(obj, dict):
            raise BadRow(name, n, NOT_AN_OBJECT.format(kind=_json_kind(obj)))
        if input_column not in obj:
            raise BadRow(name, n, NO_INPUT.format(column=input_column))
        value = obj[input_column]
        input_text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        row_id = _row_id(name, n, obj["id"]) if "id" in obj else n
        meta = {k: v for k, v in obj.items() if k not in (input_column, "id")}
        if "\\u" in text:  # a lone `\ud800` escape becomes U+FFFD: text SQLite can store
            input_text = valid_utf8(input_text)
            row_id = valid_utf8(row_id) if isinstance(row_id, str) else row_id
            meta = json.loads(valid_utf8(json.dumps(meta, ensure_ascii=False)))
        yield Row(id=row_id, input=input_text, metadata=meta, line=n)


def _row_id(name: str, n: int, value):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BadRow(name, n, BAD_ID.format(raw=json.dumps(value, ensure_ascii=False)[:60]))
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
    quoted field may span lines, and a row is named by its first line.
    `row_bytes` counts the bytes of the row being read, which `start_row`
    sets back to 0: a row longer than MAX_ROW_BYTES is a BadRow as soon as
    its bytes pass the bound."""

    def __init__(self, name: str, f):
        self.name, self.f, self.line, self.row_bytes, self.first = name, f, 0, 0, 0

    def __iter__(self):
        return self

    def start_row(self) -> None:
        self.row_bytes, self.first = 0, self.line + 1

    def __next__(self) -> str:
        raw = self.f.readline(MAX_ROW_BYTES + 2)
        if not raw:
            raise StopIteration
        self.line += 1
        self.row_bytes += len(raw)
        if self.row_bytes - (len(raw) - len(raw.rstrip(b"\r\n"))) > MAX_ROW_BYTES:
            raise BadRow(self.name, self.first or 1, ROW_TOO_BIG.format(limit=MAX_ROW_BYTES))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRow(self.name, self.line, NOT_UTF8) from None
        if self.line == 1 and text.startswith("\ufeff"):
            text = text[1:]
        return text


def _next_record(reader, lines: _LineCounter):
    """The next CSV record, or None at the end. Python's csv has a
    process-wide field bound of its own (131,072 characters): while it
    reads, it is the row's bound (a field is never longer than its row)."""
    lines.start_row()
    old = csv.field_size_limit(MAX_ROW_BYTES)
    try:
        return next(reader, None)
    except csv.Error as e:
        raise BadRow(lines.name, lines.first, str(e)) from None
    finally:
        csv.field_size_limit(old)


def _csv_rows(data: DataFile, input_column: str) -> Iterator[Row]:
    name = data.name
    with open(data.path, "rb") as f:
        lines = _LineCounter(name, f)
        reader = csv.reader(lines)
        header = _next_record(reader, lines)
        if header is None:
            raise BadRow(name, 1, EMPTY_CSV)
        if input_column not in header:
            shown = ", ".join(f"`{h}`" for h in header[:12]) + (", ..." if len(header) > 12 else "")
            raise BadRow(name, 1, NO_INPUT_COLUMN.format(column=input_column, columns=shown))
        col = header.index(input_column)
        id_col = header.index("id") if "id" in header and input_column != "id" else None
        others = [(i, h) for i, h in enumerate(header) if i not in (col, id_col)]
        while True:
            fields = _next_record(reader, lines)
            if fields is None:
                return
            start = lines.first
            if not fields or (len(fields) == 1 and not fields[0].strip() and len(header) > 1):
                continue  # an empty line
            if len(fields) < len(header):
                raise BadRow(name, start, SHORT_ROW.format(got=len(fields), want=len(header)))
            if len(fields) > len(header):
                raise BadRow(name, start, LONG_ROW.format(got=len(fields), want=len(header)))
            row_id = fields[id_col] if id_col is not None and fields[id_col] != "" else start
            yield Row(id=row_id, input=fields[col], metadata={h: fields[i] for i, h in others}, line=start)
