"""Tables for tests/suite/prepare_formats.rs, written by the formats' own writers.

    python3 write_tables.py DIR [ROWS]

writes into DIR one table as items.csv, items.parquet, items.xlsx, items.xlsb
(written by xlsb.py: no library here writes the format), items.json, items.jsonl
and items.sqlite (the same rows in each: numbers, text, booleans, dates,
datetimes and nulls); typed.parquet (what only Parquet holds: decimals,
lists, instants in UTC, nanoseconds, codes kept as strings); hostile.xlsx
(formulas, merged cells, a title row, a sheet named ../x, a sheet of a header
alone and a blank one);
shop.xlsx (two sheets, one dataset of two tables);
big.sqlite (a table of 100,000 rows of 200-character text). Given ROWS, it
writes only the items table, of ROWS rows (BENCHMARKS.md times `prepare` on it).
"""

import csv
import datetime
import decimal
import json
import sqlite3
import sys
from pathlib import Path

import openpyxl
import pyarrow as pa
import pyarrow.parquet as pq
from xlsb import write_xlsb

COLUMNS = ["id", "name", "price", "qty", "is_active", "day", "at", "category"]


def rows(count):
    start = datetime.datetime(2024, 1, 1, 8, 0, 0)
    for i in range(1, count + 1):
        yield [
            i,
            f"item {i}",
            round(i * 1.25 + 0.1, 2),
            None if i % 7 == 0 else i * 3,
            i % 3 == 0,
            datetime.date(2024, 1, 1) + datetime.timedelta(days=i),
            start + datetime.timedelta(minutes=75 * i),
            ["north", "south", "east"][i % 3],
        ]


def text(value):
    """A value as JSON and SQLite text hold it."""
    if isinstance(value, datetime.datetime):
        return value.isoformat(" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def write_items(out, count):
    table = list(rows(count))
    with open(out / "items.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows([["" if v is None else v for v in row] for row in table])

    columns = list(zip(*table))
    types = [pa.int64(), pa.string(), pa.float64(), pa.int64(), pa.bool_(), pa.date32(), pa.timestamp("us"), pa.string()]
    arrays = [pa.array(list(values), type=t) for values, t in zip(columns, types)]
    pq.write_table(pa.table(arrays, names=COLUMNS), out / "items.parquet", compression="snappy")

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("items")
    sheet.append(COLUMNS)
    for row in table:
        sheet.append(row)
    book.save(out / "items.xlsx")
    write_xlsb(out / "items.xlsb", "items", [COLUMNS] + table)

    records = [{c: text(v) for c, v in zip(COLUMNS, row) if v is not None} for row in table]
    (out / "items.json").write_text(json.dumps(records, indent=1))
    (out / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))

    db = sqlite3.connect(out / "items.sqlite")
    db.execute(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, "
        "is_active BOOLEAN, day DATE, at TIMESTAMP, category TEXT)"
    )
    db.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [[text(v) for v in row] for row in table])
    db.commit()
    db.close()


def write_typed(out):
    n = 6
    utc = [datetime.datetime(2024, 3, 1, 12, 0, tzinfo=datetime.timezone.utc) + datetime.timedelta(hours=h) for h in range(n)]
    table = pa.table(
        {
            "code": pa.array(["007", "012", "007", "100", "012", "007"]),
            "amount": pa.array([decimal.Decimal(f"{i}.{i}5") for i in range(n)], type=pa.decimal128(9, 2)),
            "tags": pa.array([[i, i + 1] for i in range(n - 1)] + [None], type=pa.list_(pa.int32())),
            "seen": pa.array(utc, type=pa.timestamp("us", tz="Europe/Paris")),
            "precise": pa.array([1_709_294_400_123_456_789 + i for i in range(n)], type=pa.timestamp("ns")),
            "ratio": pa.array([0.5, None, 1.0, 2.0, float("nan"), 3.5], type=pa.float32()),
        }
    )
    pq.write_table(table, out / "typed.parquet", compression="zstd")
    pq.write_table(table, out / "typed-gzip.parquet", compression="gzip")


def write_hostile(out):
    book = openpyxl.Workbook()
    sheet = book.active
    # Excel refuses a / in a sheet's name; a crafted file holds one anyway.
    sheet._WorkbookChild__title = "../x"
    sheet.append(["Quarterly report"])
    sheet.append(["region", "sales", "double"])
    for i, region in enumerate(["north", "south", "east", "west"], start=3):
        sheet.append([region, i * 10, f"=B{i}*2"])
    sheet.merge_cells("A1:C1")
    sheet.merge_cells("A7:C7")
    sheet["A7"] = "total"
    other = book.create_sheet("notes")
    other.append(["a note"])
    book.create_sheet("blank")
    book.save(out / "hostile.xlsx")


def write_sheets(out):
    book = openpyxl.Workbook()
    orders = book.active
    orders.title = "Orders 2024"
    orders.append(["order_id", "shop", "amount"])
    for i in range(1, 7):
        orders.append([i, ["Lyon", "Oslo"][i % 2], i * 2.5])
    shops = book.create_sheet("shops")
    shops.append(["shop", "opened"])
    shops.append(["Lyon", datetime.date(2020, 5, 1)])
    shops.append(["Oslo", datetime.date(2021, 9, 15)])
    book.save(out / "shop.xlsx")


def write_big(out):
    db = sqlite3.connect(out / "big.sqlite")
    db.execute("CREATE TABLE events (n INTEGER, body TEXT)")
    body = "x" * 200
    db.executemany("INSERT INTO events VALUES (?, ?)", ((i, f"{i:08d}{body}") for i in range(100_000)))
    db.commit()
    db.close()


if __name__ == "__main__":
    directory = Path(sys.argv[1])
    if len(sys.argv) > 2:
        write_items(directory, int(sys.argv[2]))
    else:
        write_items(directory, 40)
        write_typed(directory)
        write_hostile(directory)
        write_sheets(directory)
        write_big(directory)
