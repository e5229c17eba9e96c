"""Bounded load on loopback: concurrent uploaders against a real server; every sheet is
registered exactly once and no upload fails. Figures: bench/bench_station.py."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))


def test_eight_desks_at_once_quick(tmp_path, clean_env):
    from bench_station import run_load

    result = run_load(tmp_path, uploaders=8, sheets_each=3, workers=2, kinds={"pdf", "ydk"})
    figures = result.figures()
    assert figures["failed"] == 0 and result.registered_once, figures
    assert figures["sheets"] == 24


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_eight_uploaders_times_25_sheets_pdfs_and_photos(tmp_path, clean_env):
    from bench_station import run_load

    result = run_load(tmp_path, uploaders=8, sheets_each=25, kinds={"pdf", "scan", "photo"})
    figures = result.figures()
    print(figures)
    assert figures["sheets"] == 200 and figures["failed"] == 0, figures
    assert result.registered_once and result.registered == 200
