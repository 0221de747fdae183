"""Gzip inputs through ISA-L in a background thread (``kafkadiag.gunzip``): the same bytes as
``gzip``, every byte before damage delivered, and the damage raised after them as ``gzip`` raises it."""

from __future__ import annotations

import gzip
import io
import random
import threading
import zlib

import pytest

from kafkadiag import gunzip
from kafkadiag.inputs import open_input


def _payload(size: int, seed: int = 1) -> bytes:
    rnd = random.Random(seed)
    words = [b"baseOffset:", b"producerId:", b"12345", b"COMMIT", b"orders-7", b"\n"]
    return b" ".join(rnd.choice(words) for _ in range(size // 6))[:size]


def _read_all(stream, size: int = 7919) -> tuple[bytes, BaseException | None]:
    out = []
    try:
        while True:
            piece = stream.read1(size)
            if not piece:
                return b"".join(out), None
            out.append(piece)
    except (EOFError, *gunzip.CORRUPT_ERRORS) as exc:
        return b"".join(out), exc


@pytest.mark.parametrize("size", [0, 1, 4095, 1 << 20, (3 << 20) + 17])
def test_the_bytes_are_those_gzip_gives(size: int) -> None:
    data = _payload(size)
    stream = gunzip.GzipStream(io.BytesIO(gzip.compress(data, compresslevel=6)))
    got, error = _read_all(stream)
    assert error is None and got == data


def test_members_and_nul_padding_are_read_as_gzip_reads_them() -> None:
    a, b = _payload(300_000, 2), _payload(200_000, 3)
    packed = gzip.compress(a) + b"\x00" * 512 + gzip.compress(b) + b"\x00" * 100
    got, error = _read_all(gunzip.GzipStream(io.BytesIO(packed)))
    assert error is None and got == gzip.decompress(packed) == a + b


@pytest.mark.parametrize("damage, error_type", [
    (lambda p: p + b"<html>502 Bad Gateway</html>\n", gzip.BadGzipFile),
    (lambda p: p[:-12], EOFError),
    (lambda p: p[: len(p) // 2], EOFError),
])
def test_everything_before_the_damage_is_delivered_then_the_damage(damage, error_type) -> None:
    data = _payload(2_500_000, 4)
    packed = gzip.compress(data)
    damaged = damage(packed)
    with gzip.GzipFile(fileobj=io.BytesIO(damaged)) as reference:
        expected, _ = _read_all(reference)
    got, error = _read_all(gunzip.GzipStream(io.BytesIO(damaged)))
    assert isinstance(error, error_type)
    assert data.startswith(got) and len(got) >= len(expected)  # nothing gzip delivered is held back


def test_corrupt_data_is_an_error_after_the_good_bytes() -> None:
    data = _payload(3_000_000, 5)
    packed = bytearray(gzip.compress(data, compresslevel=1))
    packed[len(packed) * 3 // 4: len(packed) * 3 // 4 + 64] = b"\xff" * 64
    got, error = _read_all(gunzip.GzipStream(io.BytesIO(bytes(packed))))
    assert isinstance(error, gunzip.CORRUPT_ERRORS) and data.startswith(got) and len(got) > 0


def test_closing_mid_stream_stops_the_thread() -> None:
    stream = gunzip.GzipStream(io.BytesIO(gzip.compress(_payload(20 << 20, 6), compresslevel=1)))
    assert stream.read1(1000)
    stream.close()
    assert not any(t.name == "kafkadiag-inflate" and t.is_alive() for t in threading.enumerate())


def test_open_input_reads_gzip_through_it(tmp_path) -> None:
    data = _payload(1_500_000, 7)
    path = tmp_path / "dump.txt.gz"
    path.write_bytes(gzip.compress(data))
    stream = open_input(str(path))
    assert stream.compressed and stream.read() == data and not stream.error


def test_the_inflater_is_isa_l() -> None:
    """The runtime dependency is there: the fast inflater is the one that runs."""
    assert gunzip.INFLATER == "isa-l" and gunzip._inflate_lib is not zlib
