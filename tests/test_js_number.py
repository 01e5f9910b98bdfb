"""`js_number` formats every double as JavaScript's `Number.prototype.toString` does."""

from __future__ import annotations

import math
import random
import struct
from decimal import Decimal

from memtui.jscompat import js_number

# What JavaScript prints, as Node 24 prints it.
KNOWN = {
    0.1: "0.1", 1.0: "1", -2.5: "-2.5", 100.0: "100", 1e21: "1e+21", 1e20: "100000000000000000000",
    123456789012345680000.0: "123456789012345680000", 1.5e-7: "1.5e-7", 1e-6: "0.000001", 0.000123: "0.000123",
    5e-324: "5e-324", 1.7976931348623157e308: "1.7976931348623157e+308", 0.30000000000000004: "0.30000000000000004",
    -0.0: "0", 2.5e-5: "0.000025", 1.2345e-7: "1.2345e-7", 6.02214076e23: "6.02214076e+23",
}


def _by_decimal(value: float) -> str:
    """The same algorithm with the digits taken from `Decimal`: the reference the string version must equal."""
    sign, digit_tuple, exponent = Decimal(repr(value)).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k, n = len(digits), len(digits) + int(exponent)
    prefix = "-" if sign else ""
    if k <= n <= 21:
        return prefix + digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{prefix}{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return f"{prefix}0.{'0' * -n}{digits}"
    mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{prefix}{mantissa}e{'+' if n - 1 > 0 else '-'}{abs(n - 1)}"


def _doubles(count: int) -> list[float]:
    rng = random.Random(16)
    values = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(count)]
    values += [rng.random() for _ in range(count)]
    values += [round(rng.uniform(-1e6, 1e6), rng.randint(0, 8)) for _ in range(count)]
    values += [float(10 ** p) for p in range(-30, 30)] + [1.5 * 10.0 ** p for p in range(-330, 309)]
    return [v for v in values if math.isfinite(v) and v != 0]


def test_known_javascript_strings():
    assert {value: js_number(value) for value in KNOWN} == KNOWN


def test_every_double_formats_as_the_decimal_reference():
    values = _doubles(20_000)
    assert len(values) > 60_000
    assert [js_number(v) for v in values] == [_by_decimal(v) for v in values]


def test_non_finite_and_integers():
    assert [js_number(math.inf), js_number(-math.inf), js_number(math.nan)] == ["null"] * 3
    assert [js_number(7), js_number(True), js_number(-12)] == ["7", "true", "-12"]
