"""A minimal `.xlsb` writer (no Python library here writes the format), from
[MS-XLSB]: a zip of binary records — a workbook part naming one sheet, a
styles part with a date format, and the sheet's cells (integers as RK numbers,
floats, booleans, inline strings, dates and datetimes as serial numbers with
the date style, None as no cell). Enough for a reader to read the sheet as a
spreadsheet application writes it; no formulas, shared strings or formats
beyond the date.

    write_xlsb(path, sheet_name, rows)
"""

import datetime
import struct
import zipfile

# Record types ([MS-XLSB] 2.3).
ROW_HDR, CELL_RK, CELL_BOOL, CELL_REAL, CELL_ST = 0x0000, 0x0002, 0x0004, 0x0005, 0x0006
XF = 0x002F
BEGIN_SHEET, END_SHEET, BEGIN_BOOK, END_BOOK = 0x0081, 0x0082, 0x0083, 0x0084
BEGIN_BUNDLE_SHS, END_BUNDLE_SHS, BEGIN_SHEET_DATA, END_SHEET_DATA = 0x008F, 0x0090, 0x0091, 0x0092
WS_DIM, WB_PROP, BUNDLE_SH, CALC_PROP = 0x0094, 0x0099, 0x009C, 0x009D
BEGIN_STYLE_SHEET, END_STYLE_SHEET, BEGIN_CELL_XFS, END_CELL_XFS = 0x0116, 0x0117, 0x0269, 0x026A

DATE_FORMAT = 14  # the built-in number format m/d/yyyy, a date
EPOCH = datetime.datetime(1899, 12, 30)

CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/>
<Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/>
<Override PartName="/xl/worksheets/sheet1.bin" ContentType="application/vnd.ms-excel.worksheet"/>
<Override PartName="/xl/styles.bin" ContentType="application/vnd.ms-excel.styles"/>
</Types>"""

ROOT_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/>
</Relationships>"""

WORKBOOK_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.bin"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.bin"/>
</Relationships>"""


def varint(value, most):
    """A record's type or size: 7 bits a byte, the high bit saying another follows."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            break
    assert len(out) <= most
    return bytes(out)


def record(kind, body=b""):
    return varint(kind, 2) + varint(len(body), 4) + body


def wide(text):
    """An XLWideString: its length in UTF-16 code units, then UTF-16LE."""
    data = text.encode("utf-16-le")
    return struct.pack("<I", len(data) // 2) + data


def cell(column, value):
    """The record of one cell in `column` (0-based), or None for no cell."""
    if value is None:
        return None
    head = lambda style: struct.pack("<II", column, style)  # noqa: E731 — col, then iStyleRef (24 bits) and flags
    if isinstance(value, bool):
        return record(CELL_BOOL, head(0) + bytes([int(value)]))
    if isinstance(value, int) and -(2**29) <= value < 2**29:
        return record(CELL_RK, head(0) + struct.pack("<i", (value << 2) | 2))
    if isinstance(value, (int, float)):
        return record(CELL_REAL, head(0) + struct.pack("<d", float(value)))
    if isinstance(value, datetime.datetime):
        serial = (value - EPOCH) / datetime.timedelta(days=1)
        return record(CELL_REAL, head(1) + struct.pack("<d", serial))
    if isinstance(value, datetime.date):
        serial = (value - EPOCH.date()).days
        return record(CELL_REAL, head(1) + struct.pack("<d", float(serial)))
    return record(CELL_ST, head(0) + wide(str(value)))


def sheet_part(rows):
    width = max(len(row) for row in rows)
    parts = [record(BEGIN_SHEET), record(WS_DIM, struct.pack("<IIII", 0, len(rows) - 1, 0, width - 1))]
    parts.append(record(BEGIN_SHEET_DATA))
    for number, row in enumerate(rows):
        # rw, ixfe, miyRw (height in twips), flags, and no column spans.
        parts.append(record(ROW_HDR, struct.pack("<IIHHBI", number, 0, 300, 0, 0, 0)))
        parts.extend(c for c in (cell(i, v) for i, v in enumerate(row)) if c is not None)
    parts += [record(END_SHEET_DATA), record(END_SHEET)]
    return b"".join(parts)


def workbook_part(sheet_name):
    bundle = struct.pack("<II", 0, 1) + wide("rId1") + wide(sheet_name)  # visible, tab id, rel id, name
    return b"".join(
        [
            record(BEGIN_BOOK),
            record(WB_PROP, struct.pack("<II", 0, 0) + wide("")),
            record(BEGIN_BUNDLE_SHS),
            record(BUNDLE_SH, bundle),
            record(END_BUNDLE_SHS),
            record(CALC_PROP, struct.pack("<IIIdB", 0, 0, 100, 0.001, 0) + bytes(7)),
            record(END_BOOK),
        ]
    )


def styles_part():
    """Two cell formats: the general one (0) and a date (1)."""

    def xf(number_format):
        # ixfeParent, iFmt, iFont, iFill, ixBorder, trot, indent, flags, xfGrbitAtr.
        return record(XF, struct.pack("<HHHHHBBHH", 0xFFFF, number_format, 0, 0, 0, 0, 0, 0, 0))

    return b"".join(
        [
            record(BEGIN_STYLE_SHEET),
            record(BEGIN_CELL_XFS, struct.pack("<I", 2)),
            xf(0),
            xf(DATE_FORMAT),
            record(END_CELL_XFS),
            record(END_STYLE_SHEET),
        ]
    )


def write_xlsb(path, sheet_name, rows):
    """Write `rows` (the header first) as the one sheet `sheet_name` of the workbook at `path`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", CONTENT_TYPES)
        book.writestr("_rels/.rels", ROOT_RELS)
        book.writestr("xl/workbook.bin", workbook_part(sheet_name))
        book.writestr("xl/_rels/workbook.bin.rels", WORKBOOK_RELS)
        book.writestr("xl/styles.bin", styles_part())
        book.writestr("xl/worksheets/sheet1.bin", sheet_part(rows))
