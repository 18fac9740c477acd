"""Number literals as LC-3 programs write them: the assembler and the CLI read the same forms.

Decimal `#10`, `10`, `#-5`; hex `x1F`, `X1F`, `0x1F`, `#x1F`, `x-30`; binary `b0101`.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(
    r"""\#?(?:
        (?P<hex>0?[xX])(?P<hsign>-?)(?P<hdigits>[0-9a-fA-F]+)
      | [bB](?P<bsign>-?)(?P<bdigits>[01]+)
      | (?P<dec>[-+]?[0-9]+)
    )""",
    re.VERBOSE,
)


#: What a literal of more than MAX_DIGITS significant digits reads as (with its sign): out of
#: every range an LC-3 value has, like the literal itself, but never converted digit by digit
#: (Python refuses to convert a decimal of more than 4,300 digits at all).
TOO_LARGE = 1 << 64
MAX_DIGITS = 20


def parse_number(text: str) -> int | None:
    """The value of a literal, or None when text is not one (it may be a label)."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        return None
    if match["hex"]:
        negative, digits, base = match["hsign"], match["hdigits"], 16
    elif match["bdigits"]:
        negative, digits, base = match["bsign"], match["bdigits"], 2
    else:
        negative, digits, base = match["dec"][0] == "-", match["dec"].lstrip("+-"), 10
    digits = digits.lstrip("0") or "0"
    value = int(digits, base) if len(digits) <= MAX_DIGITS else TOO_LARGE
    return -value if negative else value


def parse_address(text: str) -> int:
    """A 16-bit address for the CLI (`x3000`, `0x3000`, `#12288`); ValueError otherwise."""
    value = parse_number(text)
    if value is None or not 0 <= value <= 0xFFFF:
        raise ValueError(f"not an address in x0000-xFFFF: {text!r}")
    return value


def format_address(value: int) -> str:
    return f"x{value:04X}"
