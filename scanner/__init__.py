"""decksheet: reads Yu-Gi-Oh! OCG deck registration sheets, checks them and keeps the event's record."""
import os

# The reader's matrix products are small (tens to hundreds of rows): OpenBLAS's worker threads
# only spin on the other cores — ≈ 0.9 s of processor time a hand-filled form on 2 cores, for no
# second of wall time saved (bench/README, "where a hand form's CPU goes"). One thread unless the
# user says otherwise; it takes effect when set before numpy is first imported (the CLI, the
# station's reader processes).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
