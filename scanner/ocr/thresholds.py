"""The OCR reader's decision thresholds, one home each.

Gray levels are of the flattened page (paper ≈ 255, print ≈ 0-60). Several ink cut-offs
exist on purpose: each question ("is there a rule here?", "where does the glyph end?", "is
this cell empty?") wants another trade between pale print and paper texture, so each has its
own name. Module-local tuning constants (rule tracing, strike geometry, rendering scores) stay
beside the code they tune; what is decided in more than one place lives here.
"""
from __future__ import annotations

# ---- pixel values --------------------------------------------------------------------------
MASK_ON = 255
"""A set pixel of a uint8 mask (OpenCV's convention: 0 or 255); a mask's sum ÷ this counts
its pixels."""
PAPER = 255
"""White: what a pixel painted out becomes (a rule removed, a mark cleared, a margin added)."""

# ---- gray levels: what counts as ink -------------------------------------------------------
INK_RULE = 170
"""Rules, frames and count-cell ink: pale grey rules and thin pen strokes must count as ink
(paper ≈ 255, the light header fill ≈ 225 must not)."""
INK_GLYPH = 160
"""Where a printed glyph ends when a cell is cut to its ink (name cells, the rendering check,
digits sent to Tesseract): a little darker than `INK_RULE`, so the grey halo of a blurred
photo is not part of the glyph's box."""
INK_SOLID = 140
"""The core of print or pen strokes: the share of these pixels decides whether a cell is empty
(halos and paper texture never reach it)."""
INK_STRIKE = 150
"""Ink of a pen line struck along a row (a long horizontal run; a wavy pen line is paler at
its edges than print)."""
INK_PRINT_CORE = 120
"""The darkest ink only: its colour is the colour of the print (for telling a blue pen)."""
INK_ANY = 200
"""Anything darker than the paper: the pool in which the rendering check looks for the
darkest ink of a cell (its own cut-off is relative to that ink, never paler than `INK_GLYPH`)."""

# ---- cells ---------------------------------------------------------------------------------
EMPTY_INK = 0.004
"""Share of `INK_SOLID` pixels under which a cell is empty."""

# ---- names ---------------------------------------------------------------------------------
NAME_ACCEPT = 0.80
"""A name match below this similarity is flagged 'uncertain-name'."""
NAME_MARGIN = 0.10
"""A lead over the runner-up below this is flagged 'ambiguous-name'."""
NAME_GUESS = 0.45
"""Below this no card is proposed at all."""

# ---- counts --------------------------------------------------------------------------------
MAX_PER_LINE = 3
"""Copies one deck line holds at most (the rules' three of a card): a column's printed total is
at most this many times its lines."""
DECIMAL = 10
"""A two-digit number is its first digit times this plus its second."""
COUNT_ACCEPT = 0.5
"""A count read below this confidence is flagged 'count-unclear'."""
SURE_COUNT = 0.8
"""A printed count read at least this confidently stands without a total to confirm it."""
