"""What the coder is told about inputs a program is likely to misread (pure logic)."""

from __future__ import annotations

import csv
import io

from roles.coder.input_notes import NO_INPUTS, input_notes

SALES = "region,product,units\nNorth,widget,12\nSouth,gadget,5\n"


def test_a_csv_string_is_named_as_a_table_with_its_header_and_reader() -> None:
    (note,) = input_notes({"sales": SALES, "year": 2024})
    assert "inputs['sales'] is one string of CSV text" in note
    assert "(region,product,units) and 2 data rows" in note
    assert 'csv.DictReader(io.StringIO(inputs["sales"]))' in note


def test_the_reader_it_names_reads_the_table() -> None:
    (note,) = input_notes({"rows": SALES.replace(",", ";")})
    reader = note.split("`")[1]
    inputs = {"rows": SALES.replace(",", ";")}
    rows = eval(reader, {"csv": csv, "io": io, "inputs": inputs})
    assert [r["units"] for r in rows] == ["12", "5"]


def test_prose_numbers_and_one_line_strings_get_no_note() -> None:
    prose = (
        "Our data team trains a model on fresh data every week.\n"
        "This model learns from the data, and we train it again when the data drifts.\n"
        "A good model needs clean data; we train, test and ship the model."
    )
    assert input_notes({"text": prose, "line": "a,b,c", "numbers": [1, 2], "n": 3}) == []


def test_no_inputs_says_the_values_are_in_the_goal() -> None:
    assert input_notes({}) == [NO_INPUTS]
    assert "take every value the program needs from the goal's text" in NO_INPUTS
