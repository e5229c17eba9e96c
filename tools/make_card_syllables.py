"""Build the drawings of card-name syllables that `scanner.ocr.hand_syllables` ships
(scanner/ocr/data/card_syllables.npz).

    python -m tools.make_card_syllables [--card-db ../shared/carddb/ko-KR.cdb]   # ≈ 7 s CPU

Every Hangul syllable of the card database's names is drawn upright in the tuning hands
`hand_syllables.NAME_FONTS` (as `hand_syllables.syllable_drawings` draws them; none of the faces
`bench/bench_hand.py` measures on), its unit-length `syllable_features` kept (float16, one row
per font). A syllable a later database adds is drawn on first use.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from scanner.ocr.hand_syllables import CARD_SYLLABLES_PATH, _is_syllable, draw_syllable_rows


def main(argv: list[str] | None = None) -> int:
    from card_db.cdb import load_card_db
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--card-db", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "carddb" / "ko-KR.cdb")
    ap.add_argument("--out", type=Path, default=CARD_SYLLABLES_PATH)
    args = ap.parse_args(argv)
    db = load_card_db(args.card_db)
    from scanner.ocr.names import Vocabulary
    names = Vocabulary.build(db).names.values()  # the names the reader's pools hold
    chars = sorted({ch for n in names for ch in n if _is_syllable(ch)})
    kept, feats, labels = [], [], []
    for ch in chars:
        drawn = draw_syllable_rows(ch)
        if drawn is None:
            continue
        labels += [len(kept)] * len(drawn)
        kept.append(ch)
        feats.extend(drawn)
    np.savez_compressed(args.out, syllables=np.array("".join(kept)), labels=np.array(labels, np.int16),
                        features=np.array(feats, np.float16))
    print(f"{len(kept)} syllables → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
