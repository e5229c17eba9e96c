"""The standard security handler with an empty password: how pdfium opens an encrypted PDF
that asks for no password (a sheet whose printing app set an owner password).

Its streams are measured like any other once decrypted; a file that needs a real password is
left to the readers (pdfium cannot open it either, so nothing in it can unpack). RC4 (40–128
bit), AES-128 and AES-256 (revisions 2–6), from ISO 32000-2 §7.6.4, with `cryptography`.
"""
from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator

from cryptography.hazmat.decrepit.ciphers.algorithms import ARC4
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from scanner.inputs.pdf_syntax import Name

_PAD = bytes.fromhex("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a")


def _rc4(key: bytes, data: bytes) -> bytes:
    return Cipher(ARC4(key), None).decryptor().update(data)


def _aes_cbc_decrypt(key: bytes, data: bytes, iv: bytes = bytes(16)) -> bytes:
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    return dec.update(data) + dec.finalize()


def _int(value, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _bytes(value) -> bytes:
    return bytes(value) if isinstance(value, bytes) else b""


class Decryptor:
    """Decrypts the streams of one file (the key made from the empty password)."""

    def __init__(self, key: bytes, method: bytes, exempt_metadata: bool) -> None:
        self.key = key
        self.method = method  # b"V2" (RC4), b"AESV2", b"AESV3", b"None"
        self.exempt_metadata = exempt_metadata

    def applies(self, stream_dict: dict) -> bool:
        kind = stream_dict.get(b"Type")
        if kind == b"XRef":
            return False
        if kind == b"Metadata" and self.exempt_metadata:
            return False
        return self.method != b"None"

    def _object_key(self, num: int, gen: int) -> bytes:
        if self.method == b"AESV3":
            return self.key
        salt = b"sAlT" if self.method == b"AESV2" else b""
        h = hashlib.md5(self.key + struct.pack("<I", num)[:3] + struct.pack("<I", gen)[:2] + salt)
        return h.digest()[:min(len(self.key) + 5, 16)]

    def decrypt(self, chunks: Iterator[bytes], num: int, gen: int) -> Iterator[bytes]:
        key = self._object_key(num, gen)
        if self.method == b"V2":
            dec = Cipher(ARC4(key), None).decryptor()
            for chunk in chunks:
                yield dec.update(chunk)
            return
        head = b""
        cbc = None
        tail = b""
        for chunk in chunks:
            if cbc is None:
                head += chunk
                if len(head) < 16:
                    continue
                cbc = Cipher(algorithms.AES(key), modes.CBC(head[:16])).decryptor()
                chunk = head[16:]
            data = tail + chunk
            cut = len(data) - len(data) % 16
            if cut and cut == len(data):
                cut -= 16  # keep the last block: its padding is removed at the end
            out = cbc.update(data[:cut]) if cut > 0 else b""
            tail = data[max(cut, 0):]
            if out:
                yield out
        if cbc is not None and len(tail) == 16:
            last = cbc.update(tail)
            pad = last[-1]
            yield last[:-pad] if 1 <= pad <= 16 else last


def _algorithm2(password: bytes, enc: dict, first_id: bytes, length: int, rev: int) -> bytes:
    p = _int(enc.get(b"P"), 0) & 0xFFFFFFFF  # a signed 32-bit value, written either way
    h = hashlib.md5(password + _bytes(enc.get(b"O"))[:32] + struct.pack("<I", p) + first_id)
    if rev >= 4 and enc.get(b"EncryptMetadata") is False:
        h.update(b"\xff\xff\xff\xff")
    key = h.digest()
    if rev >= 3:
        for _ in range(50):
            key = hashlib.md5(key[:length]).digest()
    return key[:length]


def _user_ok(key: bytes, enc: dict, first_id: bytes, rev: int) -> bool:
    u = _bytes(enc.get(b"U"))
    if rev == 2:
        return _rc4(key, _PAD) == u[:32]
    x = _rc4(key, hashlib.md5(_PAD + first_id).digest())
    for i in range(1, 20):
        x = _rc4(bytes(b ^ i for b in key), x)
    return x == u[:16]


def _owner_to_user(enc: dict, length: int, rev: int) -> bytes:
    """The user password hidden in /O by an empty owner password."""
    key = hashlib.md5(_PAD).digest()
    if rev >= 3:
        for _ in range(50):
            key = hashlib.md5(key).digest()
    key = key[:length]
    x = _bytes(enc.get(b"O"))[:32]
    if rev == 2:
        return _rc4(key, x)
    for i in range(19, -1, -1):
        x = _rc4(bytes(b ^ i for b in key), x)
    return x


def _hash_r6(password: bytes, salt: bytes, udata: bytes, rev: int) -> bytes:
    k = hashlib.sha256(password + salt + udata).digest()
    if rev == 5:
        return k
    i = 0
    while True:
        k1 = (password + k + udata) * 64
        enc = Cipher(algorithms.AES(k[:16]), modes.CBC(k[16:32])).encryptor()
        e = enc.update(k1) + enc.finalize()
        k = (hashlib.sha256, hashlib.sha384, hashlib.sha512)[sum(e[:16]) % 3](e).digest()
        i += 1
        if i >= 64 and e[-1] <= i - 32:
            return k[:32]


def _aes256_key(enc: dict, rev: int) -> bytes | None:
    u, o = _bytes(enc.get(b"U"))[:48], _bytes(enc.get(b"O"))[:48]
    if len(u) == 48 and _hash_r6(b"", u[32:40], b"", rev) == u[:32]:
        return _aes_cbc_decrypt(_hash_r6(b"", u[40:48], b"", rev), _bytes(enc.get(b"UE"))[:32])
    if len(o) == 48 and _hash_r6(b"", o[32:40], u, rev) == o[:32]:
        return _aes_cbc_decrypt(_hash_r6(b"", o[40:48], u, rev), _bytes(enc.get(b"OE"))[:32])
    return None


def open_with_empty_password(enc: dict, first_id: bytes) -> Decryptor | None:
    """The decryptor of a standard-handler file that opens without a password; None when it
    needs one (or uses a handler pdfium does not know either)."""
    if enc.get(b"Filter") != b"Standard":
        return None
    v = _int(enc.get(b"V"), 0)
    rev = _int(enc.get(b"R"), 2)
    method = b"V2"
    if v >= 4:
        cf = enc.get(b"CF") if isinstance(enc.get(b"CF"), dict) else {}
        stmf = enc.get(b"StmF", Name(b"Identity"))
        if stmf == b"Identity":
            method = b"None"
        else:
            filt = cf.get(bytes(stmf)) if isinstance(stmf, bytes) else None
            cfm = filt.get(b"CFM") if isinstance(filt, dict) else None
            method = bytes(cfm) if isinstance(cfm, bytes) else b"None"
    exempt = enc.get(b"EncryptMetadata") is False
    if rev >= 5:
        key = _aes256_key(enc, rev)
        return Decryptor(key, b"AESV3" if method != b"None" else method, exempt) if key else None
    length = 5 if rev == 2 else max(5, min(16, _int(enc.get(b"Length"), 40) // 8))
    for password in (_PAD, _owner_to_user(enc, length, rev)):
        key = _algorithm2(password, enc, first_id, length, rev)
        if _user_ok(key, enc, first_id, rev):
            return Decryptor(key, method, exempt)
    return None
