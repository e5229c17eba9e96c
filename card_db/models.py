"""Domain types of the card database: a card, its kind, and a limit list."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

# ygopro `datas.type` bits (see the ygopro cards.cdb schema).
TYPE_MONSTER = 0x1
TYPE_SPELL = 0x2
TYPE_TRAP = 0x4
TYPE_FUSION = 0x40
TYPE_RITUAL = 0x80
TYPE_SYNCHRO = 0x2000
TYPE_TOKEN = 0x4000
TYPE_XYZ = 0x800000
TYPE_PENDULUM = 0x1000000
TYPE_LINK = 0x4000000

# ygopro `datas.ot` bits.
OT_OCG = 0x1
OT_TCG = 0x2


class CardKind(str, enum.Enum):
    MONSTER = "monster"
    SPELL = "spell"
    TRAP = "trap"


class ExtraKind(str, enum.Enum):
    FUSION = "fusion"
    SYNCHRO = "synchro"
    XYZ = "xyz"
    LINK = "link"


@dataclass(frozen=True)
class Card:
    """One card of the database, keyed by the passcode of its original printing."""

    card_id: int
    """Passcode of the original printing (alternate artworks map here)."""
    name: str
    """Korean name as in `texts.name`."""
    kind: CardKind
    """Monster, spell or trap."""
    extra_kind: ExtraKind | None
    """Fusion/synchro/xyz/link for extra-deck monsters, else None."""
    is_token: bool
    """Tokens are never legal in a deck."""
    ot: int
    """ygopro availability bits: 0x1 OCG, 0x2 TCG."""
    type_bits: int
    """Raw ygopro `type` value."""
    alternates: tuple[int, ...] = field(default=())
    """Passcodes of alternate artworks of this card."""

    @property
    def is_extra_deck(self) -> bool:
        return self.extra_kind is not None

    @property
    def ocg_usable(self) -> bool:
        """True when the card is printed in the OCG (and is not a token)."""
        return bool(self.ot & OT_OCG) and not self.is_token

    @property
    def kind_label(self) -> str:
        """Short Korean label for a judge: 몬스터/마법/함정 (+ extra kind)."""
        base = {"monster": "몬스터", "spell": "마법", "trap": "함정"}[self.kind.value]
        if self.extra_kind:
            return {"fusion": "융합", "synchro": "싱크로", "xyz": "엑시즈", "link": "링크"}[
                self.extra_kind.value
            ] + " " + base
        return base

    @staticmethod
    def kinds_from_type(type_bits: int) -> tuple[CardKind, ExtraKind | None, bool]:
        if type_bits & TYPE_MONSTER:
            kind = CardKind.MONSTER
        elif type_bits & TYPE_SPELL:
            kind = CardKind.SPELL
        else:
            kind = CardKind.TRAP
        extra: ExtraKind | None = None
        if kind is CardKind.MONSTER:
            if type_bits & TYPE_LINK:
                extra = ExtraKind.LINK
            elif type_bits & TYPE_XYZ:
                extra = ExtraKind.XYZ
            elif type_bits & TYPE_SYNCHRO:
                extra = ExtraKind.SYNCHRO
            elif type_bits & TYPE_FUSION:
                extra = ExtraKind.FUSION
        return kind, extra, bool(type_bits & TYPE_TOKEN)


@dataclass(frozen=True)
class Candidate:
    """A fuzzy-lookup answer: a card and how well the text matched it (0..1)."""

    card: Card
    score: float


@dataclass
class LimitList:
    """One forbidden/limited list: passcode → allowed copies (0, 1 or 2)."""

    name: str
    limits: dict[int, int]
    """Original passcode → allowed count. Cards not listed are unlimited (3)."""
    extra_bans: frozenset[int] = frozenset()
    """The event's additional forbidden cards (추가 금지 카드), already folded into `limits`."""

    def allowed(self, card_id: int) -> int:
        return self.limits.get(card_id, 3)

    def is_extra_ban(self, card_id: int) -> bool:
        return card_id in self.extra_bans
