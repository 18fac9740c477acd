"""Number literals (lc3jit/toolchain/numbers.py): every form the semantics doc lists for the
assembler, which the CLI's addresses read too, and the literals that are labels instead."""

from __future__ import annotations

import pytest

from lc3jit.toolchain.numbers import TOO_LARGE, format_address, parse_address, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("#10", 10),
        ("10", 10),
        ("#-5", -5),
        ("+7", 7),
        ("x1F", 0x1F),
        ("X1f", 0x1F),
        ("0x1F", 0x1F),
        ("#x1F", 0x1F),
        ("x-30", -0x30),
        ("b0101", 5),
        ("B-11", -3),
        ("xFFFF", 0xFFFF),
        ("#000000000000000000000000000042", 42),  # leading zeros are not digits that count
    ],
)
def test_every_dialect_form_is_read(text: str, value: int) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["LOOP", "R1", "x", "#", "xG1", "b102", "0b101", "1.5", "", "x 1"])
def test_words_that_are_not_literals_are_none(text: str) -> None:
    assert parse_number(text) is None


def test_a_literal_of_thousands_of_digits_is_out_of_range_not_a_crash() -> None:
    assert parse_number("#" + "9" * 5000) == TOO_LARGE
    assert parse_number("x-" + "F" * 5000) == -TOO_LARGE


@pytest.mark.parametrize(("text", "value"), [("x3000", 0x3000), ("0x3000", 0x3000), ("#12288", 0x3000)])
def test_an_address_is_a_literal_in_x0000_to_xffff(text: str, value: int) -> None:
    assert parse_address(text) == value
    assert format_address(value) == "x3000"


@pytest.mark.parametrize("text", ["x10000", "#-1", "START", "x-1"])
def test_anything_else_is_not_an_address(text: str) -> None:
    with pytest.raises(ValueError, match=f"not an address in x0000-xFFFF: {text!r}"):
        parse_address(text)
