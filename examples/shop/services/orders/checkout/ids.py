"""Order ids are ULIDs: they sort by creation time and exist before the INSERT."""

from __future__ import annotations

import os
import time

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        value, remainder = divmod(value, 32)
        chars.append(ALPHABET[remainder])
    return "".join(reversed(chars))


def new_order_id(now_ms: int | None = None, randomness: bytes | None = None) -> str:
    """A 26-character ULID: 48 bits of milliseconds, then 80 random bits."""
    millis = int(time.time() * 1000) if now_ms is None else now_ms
    entropy = randomness if randomness is not None else os.urandom(10)
    if len(entropy) != 10:
        raise ValueError("a ULID takes 10 bytes of randomness")
    return _encode(millis, 10) + _encode(int.from_bytes(entropy, "big"), 16)


def timestamp_ms(order_id: str) -> int:
    """The creation time encoded in an order id, in milliseconds since the epoch."""
    if len(order_id) != 26:
        raise ValueError(f"not an order id: {order_id!r}")
    value = 0
    for char in order_id[:10].upper():
        value = value * 32 + ALPHABET.index(char)
    return value


def is_order_id(value: str) -> bool:
    return len(value) == 26 and all(char in ALPHABET for char in value.upper())
