"""The numba cache of a game package is dropped when any of its sources changes."""

from __future__ import annotations

from balancer.core import numba_cache
from balancer.core.numba_cache import cache_is_cold, drop_stale_cache


def test_cache_dropped_when_any_source_changes(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "rules.py").write_text("X = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "agents.f-1.py311.nbi").write_text("old index")
    (cache / "agents.f-1.py311.1.nbc").write_text("old code")
    (cache / "agents.cpython-311.pyc").write_text("bytecode")

    # no stamp yet: the cache cannot be trusted
    assert drop_stale_cache(tmp_path / "__init__.py") is True
    assert sorted(p.name for p in cache.iterdir()) == ["agents.cpython-311.pyc", "numba-sources.sha256"]

    # the sources did not change: a fresh cache is kept
    (cache / "agents.f-1.py311.nbi").write_text("new index")
    assert drop_stale_cache(tmp_path / "__init__.py") is False
    assert (cache / "agents.f-1.py311.nbi").exists()

    # another module of the package changed (agents.py did not): drop it
    (tmp_path / "rules.py").write_text("X = 2\n")
    assert drop_stale_cache(tmp_path / "__init__.py") is True
    assert not (cache / "agents.f-1.py311.nbi").exists()
    assert drop_stale_cache(tmp_path / "__init__.py") is False


def test_cache_dropped_when_a_shared_core_source_changes(tmp_path, monkeypatch):
    # a game's cached functions take in core code (FixedDraws): a change there drops the game's cache
    game = tmp_path / "game"
    game.mkdir()
    (game / "__init__.py").write_text("")
    shared = tmp_path / "fixed_draws.py"
    shared.write_text("X = 1\n")
    monkeypatch.setattr(numba_cache, "SHARED_SOURCES", (shared,))
    monkeypatch.setattr(numba_cache, "SHARED_CACHES", ())  # leave the real table loop's cache alone
    cache = game / "__pycache__"
    assert drop_stale_cache(game / "__init__.py") is False  # nothing cached yet: nothing to drop
    (cache / "kernel.f-1.py311.nbi").write_text("index")
    assert drop_stale_cache(game / "__init__.py") is False
    shared.write_text("X = 2\n")
    assert drop_stale_cache(game / "__init__.py") is True
    assert not (cache / "kernel.f-1.py311.nbi").exists()


def test_cache_is_cold_until_an_index_is_written(tmp_path):
    # a fresh install or a dropped cache has no *.nbi index: the first game compiles the engine
    (tmp_path / "__init__.py").write_text("")
    assert cache_is_cold(tmp_path / "__init__.py") is True  # no __pycache__ at all
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "rules.cpython-311.pyc").write_text("bytecode")
    assert cache_is_cold(tmp_path / "__init__.py") is True  # bytecode is not compiled code
    (cache / "rules.f-1.py311.nbi").write_text("index")
    assert cache_is_cold(tmp_path / "__init__.py") is False


def test_numba_cache_dir_is_where_the_cache_is_read_and_dropped(tmp_path, monkeypatch):
    """With NUMBA_CACHE_DIR set (docs/ci-own-game.md keeps it between CI runs), numba writes a package's
    cache to NUMBA_CACHE_DIR/<folder name>_<SHA-1 of the folder's path>, not to __pycache__: the cold
    check and the stale-cache drop look there (they looked in __pycache__ only, so a first compile
    showed as 'loading from numba's cache' and a changed source kept its stale compiled callers)."""
    import hashlib

    from balancer.core.numba_cache import cache_folder

    game = tmp_path / "game"
    game.mkdir()
    (game / "__init__.py").write_text("")
    (game / "rules.py").write_text("X = 1\n")
    user = tmp_path / "numba-cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(user))
    monkeypatch.setattr(numba_cache, "SHARED_CACHES", ())
    folder = str(game.resolve())
    # numba.core.caching.UserProvidedCacheLocator.get_suitable_cache_subpath, by hand
    expected = user / f"game_{hashlib.sha1(folder.encode()).hexdigest()}"
    assert cache_folder(game.resolve()) == expected
    (game / "__pycache__").mkdir()
    (game / "__pycache__" / "rules.f-1.py311.nbi").write_text("an index numba does not read under NUMBA_CACHE_DIR")
    assert cache_is_cold(game / "__init__.py") is True
    expected.mkdir(parents=True)
    (expected / "rules.f-1.py311.nbi").write_text("index")
    drop_stale_cache(game / "__init__.py")  # no stamp yet: dropped, then stamped
    assert not (expected / "rules.f-1.py311.nbi").exists() and (expected / numba_cache.STAMP).exists()
    (expected / "rules.f-1.py311.nbi").write_text("index")
    assert cache_is_cold(game / "__init__.py") is False
    (game / "rules.py").write_text("X = 2\n")
    assert drop_stale_cache(game / "__init__.py") is True and not (expected / "rules.f-1.py311.nbi").exists()
