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


def parse_number(text: str) -> int | None:
    """The value of a literal, or None when text is not one (it may be a label)."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        return None
    if match["hex"]:
        value = int(match["hdigits"], 16)
        return -value if match["hsign"] else value
    if match["bdigits"]:
        value = int(match["bdigits"], 2)
        return -value if match["bsign"] else value
    return int(match["dec"])


def parse_address(text: str) -> int:
    """A 16-bit address for the CLI (`x3000`, `0x3000`, `#12288`); ValueError otherwise."""
    value = parse_number(text)
    if value is None or not 0 <= value <= 0xFFFF:
        raise ValueError(f"not an address in x0000-xFFFF: {text!r}")
    return value


def format_address(value: int) -> str:
    return f"x{value:04X}"
