"""Card-name normal forms and a Hangul-aware fuzzy index (rapidfuzz).

Printed and OCR-read names differ from `texts.name` in spacing, hyphen/colon/at-sign width,
quote marks, middle dots and Latin case. `name_key` removes exactly those marks (and nothing
else: a stray `^` or `<` in an OCR read often stands for a Latin letter the Korean model cannot
read, so it must not vanish and turn the read into another card's exact name).

Fuzzy lookup compares names decomposed into jamo (Unicode NFD), so one wrong jamo (ㅓ/ㅕ, 받침)
costs less than a wrong syllable. Names with Latin/Greek letters get a second, "skeleton" score
on their Hangul part alone, because Tesseract's `kor` model has no Latin letters and prints junk
(digits, brackets) in their place.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np
from rapidfuzz import fuzz

# Marks that are printed, typed and read inconsistently; dropped from exact keys. After NFKC the
# fullwidth forms (－：＠＝) are ASCII already.
_SOFT = set(
    "-‐‑‒–—―−﹣"  # hyphens and dashes
    "·・•‧･∙"  # middle dots
    "「」『』\"'`´‘’“”"  # quotes and corner brackets
    ".,:;"  # small punctuation OCR drops or adds freely
)
_DASHES = set("-‐‑‒–—―−﹣")
_DROPPED = re.compile("[\\s" + re.escape("".join(sorted(_SOFT))) + "]")
"""What `name_key` drops: white space (`\\s` is `str.isspace`) and the soft marks, in one pass
(a character loop over 14k names was a third of the name tables' build in every reader)."""
_DOTS = set("·・•‧･∙")

PREFILTER = 64
"""Candidates kept from the syllable prefilter for the exact jamo score."""
SKELETON_CAP = 0.95
"""A Hangul-skeleton match never scores as high as a full match."""


SCRIPT_SHARE = 0.25
"""A script is loaded when at least this share of the indexed names is written in it."""


def name_script(text: str) -> str | None:
    """The script most of a name's letters are written in: hangul, latin, kana or han (None
    without letters). A Korean name with a few Latin letters (`EM 골드 팽`) is hangul."""
    counts = {"hangul": 0, "latin": 0, "kana": 0, "han": 0}
    for ch in text:
        o = ord(ch)
        if 0xAC00 <= o <= 0xD7A3 or 0x3130 <= o <= 0x318F:
            counts["hangul"] += 2  # a syllable is worth a word's worth of Latin letters
        elif ch.isascii() and ch.isalpha():
            counts["latin"] += 1
        elif 0x3040 <= o <= 0x30FF:
            counts["kana"] += 1
        elif 0x4E00 <= o <= 0x9FFF:
            counts["han"] += 1
    best = max(counts, key=counts.get)
    return best if counts[best] else None


def name_key(text: str) -> str:
    """Normal form for exact matching: NFKC, case-folded, no spaces or soft marks."""
    return _DROPPED.sub("", unicodedata.normalize("NFKC", text).casefold())


def fine_key(text: str) -> str:
    """A stricter form that keeps hyphens and dots, to tell apart names `name_key` merges
    (e.g. `마그넷 워리어 Σ＋` / `Σ－`)."""
    t = unicodedata.normalize("NFKC", text).casefold()
    out = []
    for ch in t:
        if ch.isspace() or ch in "「」『』\"'`´‘’“”":
            continue
        out.append("-" if ch in _DASHES else "·" if ch in _DOTS else ch)
    return "".join(out)


def jamo(text: str) -> str:
    """Decompose Hangul syllables into conjoining jamo (initial/medial/final stay distinct)."""
    return unicodedata.normalize("NFD", text)


def jamo_likeness(a: str, b: str) -> float:
    """How alike two names are jamo by jamo, 0..1, on their exact keys (one misread jamo of a
    long name costs little; a syllable of a short one much)."""
    return fuzz.ratio(jamo(name_key(a)), jamo(name_key(b))) / 100.0


def is_syllable(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def hangul_skeleton(key: str) -> str:
    """The Hangul syllables of a key, in order."""
    return _NOT_SYLLABLE.sub("", key)  # (a loop over the characters: 4× the time, 14k names a page)


_NOT_SYLLABLE = re.compile("[^\uac00-\ud7a3]")
"""Anything but a Hangul syllable (`is_syllable`)."""


def foreign_part(key: str) -> str:
    """Everything of a key that is not a Hangul syllable (Latin, digits, symbols, lone jamo)."""
    return "".join(ch for ch in key if not is_syllable(ch))


def has_letters_kor_cannot_read(key: str) -> bool:
    """Latin, Greek and other non-Hangul letters (the `kor` model reads none of them)."""
    return any(ch.isalpha() and not is_syllable(ch) for ch in key)


_LATIN_RUN = re.compile(r"[a-z]{2,}")
UNEXPLAINED_LETTERS_CAP = 0.8
"""Score cap for an all-Hangul name when the read holds a run of Latin letters (below any
accept threshold, so a judge sees the line)."""


def _ratio(a: str, b: str) -> float:
    return fuzz.ratio(a, b) / 100.0


def weighted_jamo(key: str) -> str:
    """Jamo form in which every non-Hangul character counts twice: a Hangul syllable is 2–3
    jamo, so without this a stray Latin letter or digit in a read would cost almost nothing."""
    return jamo("".join(ch if is_syllable(ch) else ch * 2 for ch in key))


def name_similarity(query_key: str, name_key_: str, query_wj: str | None = None,
                    name_wj: str | None = None) -> float:
    """Similarity 0..1 of a read key and a name key: the (weighted) jamo ratio, or for names
    with letters `kor` cannot read, a capped score on the Hangul part (whichever is higher).
    `query_wj`/`name_wj` are the `weighted_jamo` forms when the caller has them already."""
    full = _ratio(query_wj or weighted_jamo(query_key), name_wj or weighted_jamo(name_key_))
    if not has_letters_kor_cannot_read(name_key_):
        if _LATIN_RUN.search(query_key):
            # Letters the all-Hangul name cannot explain stand for syllables read wrong
            # ('블랙 페더 ME 드래곤' is not '블랙 페더 드래곤'): never enough to accept alone.
            return min(full, UNEXPLAINED_LETTERS_CAP)
        return full
    return max(full, _skeleton_score(query_key, name_key_))


def _run_shape(key: str) -> str:
    """Order of Hangul and non-Hangul runs of a key: 'c스네이크' → 'XH', '스네이크&' → 'HX'."""
    shape = ["H" if is_syllable(ch) else "X" for ch in key]
    return "".join(c for i, c in enumerate(shape) if i == 0 or c != shape[i - 1])


def _skeleton_score(q: str, n: str) -> float:
    skel_n = hangul_skeleton(n)
    if len(skel_n) < 2:
        return 0.0  # a mostly-Latin name: its Hangul part is no evidence
    hs = _ratio(jamo(hangul_skeleton(q)), jamo(skel_n))
    if hs < 0.75:
        return 0.0
    fq, fn = foreign_part(q), foreign_part(n)
    if fq:
        # kor prints junk of about the right length where the Latin letters were. When the read
        # holds Latin letters (kor+eng read them), they are evidence: lenience only if they agree.
        length_agree = min(len(fq), len(fn)) / max(len(fq), len(fn))
        lenient = 0.7 if any("a" <= ch <= "z" for ch in fq) else 0.85
        foreign = max(lenient + 0.15 * length_agree, _ratio(fq, fn))
        if _run_shape(q) != _run_shape(n):
            # The read's junk stands where the name has Hangul (e.g. '스네이크 &' for
            # 'C·스네이크'): it is a misread syllable, not the name's Latin letters.
            foreign = min(foreign, 0.6)
    else:
        foreign = 0.7  # the letters vanished altogether: weaker evidence
    strength = min(1.0, len(skel_n) / 3)  # a 2-syllable skeleton is a weaker match than 3+
    return SKELETON_CAP * hs * foreign * (0.75 + 0.25 * strength)


@dataclass
class NameIndex:
    """Exact and fuzzy lookup over the names of one card database."""

    ids: list[int]
    """card_id per indexed name (same order as `keys`)."""
    keys: list[str]
    """`name_key` of each name."""
    wjamo_keys: list[str] = field(default_factory=list)
    """`weighted_jamo` of each key (precomputed for the fuzzy score)."""
    exact_map: dict[str, list[int]] = field(default_factory=dict)
    """name_key → card_ids (several only for cards the key cannot tell apart)."""
    fine_map: dict[str, list[int]] = field(default_factory=dict)
    """fine_key → card_ids, for keys shared by different names."""
    postings: dict[str, np.ndarray] = field(default_factory=dict)
    """Syllable/character → indexes of the names holding it (the fuzzy prefilter)."""
    key_lens: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    first_secondary: int | None = None
    """Index of the first name from a further locale (names of the first database come first).
    The prefilter keeps its best candidates per group, so other languages' names never push a
    Korean candidate out of it: Korean reads rank exactly as with the Korean database alone."""
    skeletons: dict[str, list[int]] = field(default_factory=dict)
    """Hangul skeleton → indexes of names with Latin letters (exact skeleton hits)."""
    shadows: dict[int, list[int]] = field(default_factory=dict)
    """card_id → cards whose name becomes this card's name when `kor` drops their Latin/Greek
    letters (`바렐로드 X 드래곤` → `바렐로드 드래곤`): an exact OCR hit on such a card is not
    proof (40 such cards, shadowed by 49, in the 2026 Korean database)."""

    @classmethod
    def build(cls, items: Iterable[tuple[int, str]], secondary_from: int | None = None
              ) -> NameIndex:
        """Index (card_id, name) pairs; items from position `secondary_from` on are names of
        further locales."""
        ids: list[int] = []
        keys: list[str] = []
        exact: dict[str, list[int]] = {}
        fine_by_key: dict[str, dict[str, list[int]]] = {}
        first_secondary: int | None = None
        for pos, (cid, name) in enumerate(items):
            k = name_key(name)
            if not k:
                continue
            if first_secondary is None and secondary_from is not None and pos >= secondary_from:
                first_secondary = len(ids)
            ids.append(cid)
            keys.append(k)
            bucket = exact.setdefault(k, [])
            if cid not in bucket:
                bucket.append(cid)
            fine_by_key.setdefault(k, {}).setdefault(fine_key(name), []).append(cid)
        fine: dict[str, list[int]] = {}
        for by_fine in fine_by_key.values():
            if len(by_fine) > 1:  # only keys that merge different names need the finer form
                for fk, cids in by_fine.items():
                    fine[fk] = sorted(set(cids))
        post: dict[str, list[int]] = {}
        skel: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            for ch in set(k):
                post.setdefault(ch, []).append(i)
            if has_letters_kor_cannot_read(k):
                s = hangul_skeleton(k)
                if len(s) >= 2:
                    skel.setdefault(s, []).append(i)
        shadows: dict[int, list[int]] = {}
        for i, k in enumerate(keys):
            if has_letters_kor_cannot_read(k):
                bare = "".join(ch for ch in k if not (ch.isalpha() and not is_syllable(ch)))
                for cid in exact.get(bare, []):
                    if cid != ids[i] and ids[i] not in shadows.setdefault(cid, []):
                        shadows[cid].append(ids[i])
        return cls(ids=ids, keys=keys, wjamo_keys=[weighted_jamo(k) for k in keys], shadows=shadows,
                   first_secondary=first_secondary,
                   exact_map=exact, fine_map=fine,
                   postings={ch: np.asarray(v, dtype=np.int32) for ch, v in post.items()},
                   key_lens=np.asarray([len(k) for k in keys], dtype=np.int32), skeletons=skel)

    def scripts(self) -> frozenset[str]:
        """The scripts enough of the names are written in (SCRIPT_SHARE): a line in another
        script cannot be read with this database, whatever its fuzzy score (counted once)."""
        got = self.__dict__.get("_scripts")
        if got is None:
            counts: dict[str | None, int] = {}
            for k in self.keys:
                script = name_script(k)
                counts[script] = counts.get(script, 0) + 1
            total = max(1, len(self.keys))
            got = frozenset(s for s, n in counts.items() if s and n >= SCRIPT_SHARE * total)
            self.__dict__["_scripts"] = got
        return got

    def exact_all(self, text: str) -> list[int]:
        """Every card whose name equals `text` up to the normal form (best form first)."""
        hits = self.exact_map.get(name_key(text), [])
        if len(hits) > 1:
            finer = self.fine_map.get(fine_key(text))
            if finer:
                return list(finer)
        return list(hits)

    def exact(self, text: str) -> int | None:
        """card_id whose name equals `text` up to the normal form; None if none or ambiguous."""
        hits = self.exact_all(text)
        return hits[0] if len(hits) == 1 else None

    def _prefilter(self, key: str) -> np.ndarray:
        """Indexes of the names sharing the most characters with `key` (an upper bound of
        the ratio, so the true best match is among them)."""
        lists = [self.postings[ch] for ch in set(key) if ch in self.postings]
        if not lists:
            return np.zeros(0, dtype=np.int64)
        overlap = np.bincount(np.concatenate(lists), minlength=len(self.keys))
        bound = overlap / (len(key) + self.key_lens)
        split = self.first_secondary
        if split is None:
            return _top(bound, 0)
        return np.concatenate([_top(bound[:split], 0), _top(bound[split:], split)])

    def search(self, text: str, limit: int = 5) -> list[tuple[int, float]]:
        """Ranked (card_id, score 0..1) for a name as read. Exact key matches score 1.0; the
        runners-up follow, so a caller can always judge the margin."""
        key = name_key(text)
        if not key:
            return []
        exact = set(self.exact_all(text))
        cand = set(self._prefilter(key).tolist())
        skel = hangul_skeleton(key)
        if len(skel) >= 2:
            cand.update(self.skeletons.get(skel, []))
        best: dict[int, float] = {cid: 1.0 for cid in exact}
        qwj = weighted_jamo(key)
        for idx in cand:
            cid = self.ids[idx]
            if cid in exact:
                continue
            # only an exact key scores 1.0
            s = min(name_similarity(key, self.keys[idx], qwj, self.wjamo_keys[idx]), 0.999)
            if s > best.get(cid, 0.0):
                best[cid] = s
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(cid, round(s, 4)) for cid, s in ranked[:limit] if s >= 0.2]

    # The index is cached as JSON (never pickle: a cache file must not be able to run code).
    def to_json(self) -> dict:
        return {"ids": self.ids, "keys": self.keys, "wjamo_keys": self.wjamo_keys,
                "exact_map": self.exact_map, "fine_map": self.fine_map,
                "postings": {ch: v.tolist() for ch, v in self.postings.items()},
                "skeletons": self.skeletons,
                "shadows": [[cid, ids] for cid, ids in self.shadows.items()],
                "first_secondary": self.first_secondary}

    @classmethod
    def from_json(cls, d: dict) -> NameIndex:
        """Rebuild from `to_json`, checking every type: a malformed cache raises TypeError or
        ValueError."""
        ids, keys, wj = _ints(d["ids"]), _strs(d["keys"]), _strs(d["wjamo_keys"])
        if not (len(ids) == len(keys) == len(wj)):
            raise ValueError("index lists of different lengths")
        n = len(keys)
        postings = {_str(ch): np.asarray(_ints(v, n), dtype=np.int32)
                    for ch, v in _dict(d["postings"]).items()}
        shadows: dict[int, list[int]] = {}
        for item in _list(d["shadows"]):
            cid, sh = _list(item)
            shadows[_int(cid)] = _ints(sh)
        split = d.get("first_secondary")
        if split is not None:
            _int(split, n + 1)
        return cls(ids=ids, keys=keys, wjamo_keys=wj, shadows=shadows, first_secondary=split,
                   exact_map={_str(k): _ints(v) for k, v in _dict(d["exact_map"]).items()},
                   fine_map={_str(k): _ints(v) for k, v in _dict(d["fine_map"]).items()},
                   postings=postings, key_lens=np.asarray([len(k) for k in keys], dtype=np.int32),
                   skeletons={_str(k): _ints(v, n) for k, v in _dict(d["skeletons"]).items()})


def _top(bound: np.ndarray, offset: int) -> np.ndarray:
    """Indexes (plus `offset`) of the PREFILTER highest positive bounds."""
    if not len(bound):
        return np.zeros(0, dtype=np.int64)
    k = min(PREFILTER, len(bound))
    top = np.argpartition(-bound, k - 1)[:k]
    return top[bound[top] > 0] + offset


def _list(x: object) -> list:
    if not isinstance(x, list):
        raise TypeError("expected a list")
    return x


def _dict(x: object) -> dict:
    if not isinstance(x, dict):
        raise TypeError("expected an object")
    return x


def _str(x: object) -> str:
    if not isinstance(x, str):
        raise TypeError("expected a string")
    return x


def _int(x: object, below: int | None = None) -> int:
    if type(x) is not int or x < 0 or (below is not None and x >= below):
        raise ValueError("expected a non-negative integer in range")
    return x


def _ints(x: object, below: int | None = None) -> list[int]:
    return [_int(v, below) for v in _list(x)]


def _strs(x: object) -> list[str]:
    return [_str(v) for v in _list(x)]
