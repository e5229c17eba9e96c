"""Loading a ygopro cards.cdb: kinds, availability, alternate artworks, the index cache."""
from __future__ import annotations

import glob
import json
import os
import sqlite3
from pathlib import Path

import pytest

from card_db.cdb import load_card_db
from card_db.models import CardKind, ExtraKind
from scanner.errors import CardDatabaseError

# (id, ot, alias, type, name)
ROWS = [
    (14558127, 1, 0, 0x21 | 0x1000, "하루 우라라"),
    (14558128, 1, 14558127, 0x21 | 0x1000, "하루 우라라"),  # alternate artwork (alias within 20)
    (9785661, 3, 0, 0x61, "아자미나 솔 에리시크톤"),
    (1012060, 3, 9785661, 0x61, "아자미나 솔 에리시크톤"),  # far alias, same name: same card
    (27204312, 3, 0, 0x21, "하피 레이디 삼자매"),
    (12206212, 3, 27204312, 0x21, "하피 레이디 1"),  # far alias, other name: another card
    (84013237, 3, 0, 0x800021, "No.39 유토피아"),
    (1861630, 1, 0, 0x4011, "양 토큰"),
    (99999001, 2, 0, 0x2, "TCG 전용 마법"),
    (80161395, 1, 0, 0x4, "신비의 중화냄비"),
]


def make_cdb(path: Path, rows=ROWS) -> Path:
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE datas(id integer primary key, ot integer, alias integer, setcode integer,"
        " type integer, atk integer, def integer, level integer, race integer, attribute integer,"
        " category integer);"
        "CREATE TABLE texts(id integer primary key, name text, desc text);")
    for cid, ot, alias, type_bits, name in rows:
        con.execute("INSERT INTO datas VALUES (?,?,?,0,?,0,0,0,0,0,0)", (cid, ot, alias, type_bits))
        con.execute("INSERT INTO texts VALUES (?,?,'')", (cid, name))
    con.commit()
    con.close()
    return path


@pytest.fixture()
def tiny_db(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return load_card_db(make_cdb(tmp_path / "cards.cdb"))


def test_kinds_availability_and_tokens(tiny_db):
    uta = tiny_db.get(14558127)
    assert uta.kind is CardKind.MONSTER and not uta.is_extra_deck and uta.ocg_usable
    assert tiny_db.get(84013237).extra_kind is ExtraKind.XYZ
    assert tiny_db.get(1861630).is_token and not tiny_db.get(1861630).ocg_usable
    assert tiny_db.get(99999001).kind is CardKind.SPELL and not tiny_db.get(99999001).ocg_usable
    assert tiny_db.get(80161395).kind is CardKind.TRAP
    assert tiny_db.get(123) is None and tiny_db.original_id(123) is None


def test_alternate_artworks_collapse_onto_the_original(tiny_db):
    assert tiny_db.original_id(14558128) == 14558127
    assert tiny_db.get(14558128).card_id == 14558127
    assert tiny_db.get(14558127).alternates == (14558128,)
    assert tiny_db.original_id(1012060) == 9785661  # far alias with the same name
    assert tiny_db.original_id(12206212) == 12206212  # far alias with another name: own card
    assert tiny_db.by_name("하루우라라").card_id == 14558127
    assert len(tiny_db.cards) == 8 and tiny_db.rows == 10


def test_index_cache_is_written_beside_and_rebuilt_when_the_db_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    load_card_db(path)
    beside = tmp_path / "cards.cdb.decksheet-index.json"
    assert beside.is_file() and json.loads(beside.read_bytes())["format"] == "decksheet-card-index"
    con = sqlite3.connect(path)
    con.execute("INSERT INTO datas VALUES (55144522,1,0,0,2,0,0,0,0,0,0)")
    con.execute("INSERT INTO texts VALUES (55144522,'강欲의 항아리','')")
    con.commit()
    con.close()
    assert load_card_db(path).get(55144522) is not None  # stale cache not used


def test_read_only_folder_caches_in_the_user_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "ro"
    folder.mkdir()
    path = make_cdb(folder / "cards.cdb")
    folder.chmod(0o555)
    try:
        load_card_db(path)
        assert not list(folder.glob("*decksheet-index*"))
        assert list((tmp_path / "cache" / "decksheet").glob("index-*.json"))
        assert load_card_db(path).get(14558127) is not None  # served from the user cache
    finally:
        folder.chmod(0o755)


class _Payload:
    """Runs a shell command when unpickled: what a planted pickle cache would do."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_planted_pickle_cache_never_runs(tmp_path, monkeypatch):
    # Issue 15 #10: the index cache was a pickle loaded before validation. Plant a malicious
    # pickle everywhere a cache was or is looked for: loading must not execute it.
    import pickle

    from card_db.cache import cache_paths, fingerprint

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    marker = tmp_path / "pwned"
    evil = pickle.dumps(_Payload(marker))
    places = [tmp_path / "cards.cdb.decksheet-index", *cache_paths(fingerprint([("card-db", path)]))]
    for p in places:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(evil)
    db = load_card_db(path)
    assert not marker.exists() and db.get(14558128).card_id == 14558127
    # the planted files were not trusted: the cache beside is a fresh JSON one
    assert json.loads((tmp_path / "cards.cdb.decksheet-index.json").read_bytes())["version"]


def test_a_cache_is_used_only_for_the_files_it_was_built_from(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    load_card_db(path)
    cache = tmp_path / "cards.cdb.decksheet-index.json"
    blob = json.loads(cache.read_bytes())
    assert blob["sources"][0]["sha256"] and blob["sources"][0]["size"] == path.stat().st_size
    # a well-formed cache with wrong types inside is rebuilt, not trusted
    blob["payload"]["cards"][0][1] = ["not", "a", "name"]
    cache.write_text(json.dumps(blob))
    assert load_card_db(path).get(14558127).name == "하루 우라라"
    # a cache claiming another version is ignored
    blob = json.loads(cache.read_bytes())
    blob["version"] = 1
    blob["payload"]["cards"] = []
    cache.write_text(json.dumps(blob))
    assert len(load_card_db(path).cards) == 8
    # the payload served from a valid cache equals a fresh load
    cached, fresh = load_card_db(path), load_card_db(path, use_cache=False)
    assert cached.cards == fresh.cards and cached.aliases == fresh.aliases
    assert cached.names.search("하루 우라러") == fresh.names.search("하루 우라러")


def test_atomic_write_replaces_whole_files(tmp_path):
    from card_db.paths import atomic_write
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    atomic_write(target, b"new" * 1000)
    assert target.read_bytes() == b"new" * 1000 and [p.name for p in tmp_path.iterdir()] == ["f.bin"]
    with pytest.raises(OSError):
        atomic_write(tmp_path / "no-such-folder" / "f", b"x")


@pytest.mark.parametrize("content,what", [
    (None, "not found"), (b"", "not a ygopro"), (b"\x00\x01junk" * 100, "not a ygopro"),
    ("empty-schema", "not a ygopro"),
])
def test_bad_database_files_give_one_line_errors(tmp_path, content, what):
    path = tmp_path / "cards.cdb"
    if content == "empty-schema":
        sqlite3.connect(path).execute("CREATE TABLE x(a)").connection.close()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(CardDatabaseError, match=what) as exc:
        load_card_db(path, use_cache=False)
    assert "\n" not in str(exc.value)


# ---------------------------------------------------------------- real data


def test_real_database_counts(real_db):
    assert real_db.rows == 14283
    # the 73 alias rows are alternate artworks; the two same-name twins (one card under two
    # passcodes, no alias link) collapse too
    assert len(real_db.aliases) == 73 + 2
    for alt, orig in real_db.aliases.items():
        assert real_db.get(alt).name == real_db.cards[orig].name


def test_twin_passcodes_collapse_onto_the_first_printing(real_db):
    # 융합 and 블랙 매지션 are each listed twice with identical data and no alias: one card each,
    # reported under the original printing that real decks use.
    assert real_db.names.exact_all("융합") == [24094653]
    assert real_db.names.exact_all("블랙 매지션") == [46986414]
    assert real_db.original_id(27847700) == 24094653
    assert real_db.original_id(36996508) == 46986414
    assert 36996508 in real_db.get(46986414).alternates


def _fixture_passcodes(fixtures: Path) -> set[int]:
    ids: set[int] = set()
    for p in glob.glob(str(fixtures / "legality" / "*.ydk")) + \
            glob.glob(str(fixtures / "compare" / "*" / "*.ydk")):
        ids.update(int(x) for x in Path(p).read_text().split() if x.isdigit())
    for p in glob.glob(str(fixtures / "sheets" / "*.truth.json")):
        d = json.loads(Path(p).read_text())
        for s in ("main", "extra", "side"):
            ids.update(int(k) for k in (d.get(s) or {}))
    return ids


def test_every_fixture_passcode_resolves(real_db, fixtures_dir):
    ids = _fixture_passcodes(fixtures_dir)
    assert len(ids) > 300
    assert sorted(i for i in ids if real_db.get(i) is None) == []


@pytest.mark.parametrize("name", ["jsy1728_ko_pre-release_2021.cdb", "jsy1728_ko_pre-update_2021.cdb"])
def test_real_2021_korean_cdbs_load(shared_dir, name, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = shared_dir / "carddb" / "real-samples" / name
    db = load_card_db(path, use_cache=os.access(path.parent, os.W_OK))
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    n_rows = con.execute("SELECT count(*) FROM datas d JOIN texts t ON t.id = d.id").fetchone()[0]
    con.close()
    assert db.rows == n_rows and len(db.cards) + len(db.aliases) == n_rows
    some = next(iter(db.cards.values()))
    assert db.by_name(some.name) is not None or len(db.names.exact_all(some.name)) > 1


# ---------------------------------------------------------------- alias sources, several databases


def test_alias_csv_adds_alternate_artworks(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    csv_path = tmp_path / "alts.csv"
    csv_path.write_text("source,original_id,alt_id\n"  # columns found by their header names
                        "x,14558127,14558129\n"
                        "x,14558127,14558128\n"  # already an artwork in the database: kept as is
                        "x,55555555,55555556\n"  # original unknown everywhere: skipped
                        "x,abc,123\n"  # unreadable: skipped with a warning
                        "x,84013237,99999999999\n", encoding="utf-8")  # beyond 32 bits
    db = load_card_db(path, aliases=csv_path)
    assert db.get(14558129).card_id == 14558127 and db.get(55555556) is None
    assert db.get(14558127).alternates == (14558128, 14558129)
    info = db.sources[1]
    assert (info.role, info.rows, info.alias_rows, info.skipped) == ("aliases", 3, 1, 3)
    assert db.alias_rows_loaded == 1
    # the cache knows the alias file: another alias file is another cache
    csv_path.write_text("alt_id,original_id\n84013238,84013237\n", encoding="utf-8")
    db2 = load_card_db(path, aliases=csv_path)
    assert db2.get(84013238).card_id == 84013237 and db2.get(14558129) is None


def test_alias_rows_from_another_cdb(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    other = make_cdb(tmp_path / "other.cdb", [
        (84013237, 3, 0, 0x800021, "Number 39: Utopia"),
        (84013240, 3, 84013237, 0x800021, "Number 39: Utopia"),  # an artwork the first lacks
        (27204312, 3, 0, 0x21, "Harpie Lady Sisters")])
    monkeypatch.setenv("DECKSHEET_ALIASES", str(other))
    db = load_card_db(path)
    assert db.get(84013240).card_id == 84013237 and db.alias_rows_loaded == 1
    assert db.by_name("Number 39: Utopia") is None  # an alias source adds no names
    monkeypatch.delenv("DECKSHEET_ALIASES")
    both = load_card_db([path, other])  # as a second locale it adds names too
    assert both.by_name("number 39 utopia").card_id == 84013237
    assert both.by_name("No.39 유토피아").card_id == 84013237
    assert both.get(84013237).name == "No.39 유토피아"  # the first database names the card
    assert both.sources[1].names == 3 and both.alias_rows_loaded == 1


def test_a_second_locale_adds_cards_the_first_lacks(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    newer = make_cdb(tmp_path / "newer.cdb", [(10000001, 1, 0, 0x21, "Brand New Card")])
    db = load_card_db([path, newer])
    assert db.get(10000001).name == "Brand New Card" and db.sources[1].cards == 1


@pytest.mark.parametrize("content,what", [
    (None, "alias file not found"), (b"\x00\x01" * 50, "binary data"), (b"hello\n", "no alias pairs"),
])
def test_bad_alias_files_give_one_line_errors(tmp_path, content, what):
    path = make_cdb(tmp_path / "cards.cdb")
    alias = tmp_path / "alts.csv"
    if content is not None:
        alias.write_bytes(content)
    with pytest.raises(CardDatabaseError, match=what) as exc:
        load_card_db(path, aliases=alias, use_cache=False)
    assert "\n" not in str(exc.value)


def test_the_spec_reloads_the_same_database(tmp_path, monkeypatch):
    # An audit worker process gets `db.spec` and must load the same cards and aliases.
    import pickle
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_cdb(tmp_path / "cards.cdb")
    csv_path = tmp_path / "alts.csv"
    csv_path.write_text("alt_id,original_id\n14558129,14558127\n", encoding="utf-8")
    db = load_card_db(path, aliases=csv_path)
    again = load_card_db(pickle.loads(pickle.dumps(db.spec)))
    assert again.aliases == db.aliases and again.get(14558129).card_id == 14558127
