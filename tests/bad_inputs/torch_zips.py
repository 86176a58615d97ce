"""Hostile ``torch.save`` zips, written record by record (test-only).

`torch.save` writes only honest archives, so the hostile ones are rewritten here: each record
can be given another compression method, the encrypted flag, a declared inflated size that is
not the truth, or a deflate stream that inflates far beyond what the file holds (made without
ever holding the inflated bytes: one compressed block of zeros, repeated).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

STORED = zipfile.ZIP_STORED
DEFLATED = zipfile.ZIP_DEFLATED


@dataclass(frozen=True)
class Record:
    """One zip record as it will be written: `payload` as it sits on disk (compressed when
    `method` compresses), `size` the inflated size the headers declare."""

    name: str
    payload: bytes
    size: int
    crc: int
    method: int = STORED
    flags: int = 0


def records_of(obj: Any, archive_name: str = "archive") -> list[Record]:
    """The records `torch.save(obj)` writes, stored, under the top folder `archive_name`."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    records = []
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        for info in archive.infolist():
            data = archive.read(info)
            name = archive_name + info.filename[info.filename.index("/") :]
            records.append(Record(name, data, len(data), zlib.crc32(data)))
    return records


def deflated(record: Record) -> Record:
    """`record` compressed with deflate (an honest archive torch can still read)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = compressor.compress(record.payload) + compressor.flush()
    return replace(record, payload=payload, method=DEFLATED)


def zeros_bomb(name: str, inflated_bytes: int) -> Record:
    """A deflated record of `inflated_bytes` zeros, about 1/1000 of that on disk, made in
    milliseconds: a full-flushed block of 1 MiB of zeros does not depend on what came before,
    so the block is repeated and a final empty block ends the stream."""
    chunk = 1 << 20
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    final = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    count = inflated_bytes // chunk
    return Record(name, block * count + final, count * chunk, 0, DEFLATED)


def write_zip(path: Path, records: list[Record]) -> Path:
    """A zip of `records` exactly as described (no zip64: every size under 4 GiB)."""
    body = io.BytesIO()
    central = io.BytesIO()
    for record in records:
        offset = body.tell()
        name = record.name.encode()
        fields = (record.flags, record.method, 0, 0, record.crc, len(record.payload), record.size)
        body.write(struct.pack("<IH", 0x04034B50, 20))
        body.write(struct.pack("<HHHHIII", *fields))
        body.write(struct.pack("<HH", len(name), 0) + name + record.payload)
        central.write(struct.pack("<IHH", 0x02014B50, 20, 20))
        central.write(struct.pack("<HHHHIII", *fields))
        central.write(struct.pack("<HHHHHII", len(name), 0, 0, 0, 0, 0, offset) + name)
    start = body.tell()
    directory = central.getvalue()
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(records), len(records), len(directory), start, 0
    )
    path.write_bytes(body.getvalue() + directory + end)
    return path


def save_records(path: Path, obj: Any, archive_name: str = "archive") -> Path:
    """`torch.save(obj, path)` through `write_zip` (the same bytes torch reads)."""
    return write_zip(path, records_of(obj, archive_name))


def storage_record(records: list[Record], key: str = "0") -> int:
    """The index of storage `key`'s record (``<archive>/data/<key>``)."""
    for index, record in enumerate(records):
        if record.name.endswith(f"/data/{key}"):
            return index
    raise KeyError(key)
