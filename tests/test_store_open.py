"""Opening a store on something that is not one is an expected, worded failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Settings
from store import StoreUnavailable, open_store


@pytest.mark.parametrize("migrate", [True, False])
def test_a_file_that_is_not_a_database_is_unavailable(tmp_path: Path, migrate: bool) -> None:
    path = tmp_path / "notes.db"
    content = b"plain notes, not SQLite\n" * 100
    path.write_bytes(content)
    with pytest.raises(StoreUnavailable, match="file is not a database"):
        open_store(Settings(tracking_db_url=f"sqlite:///{path}"), migrate=migrate)
    assert path.read_bytes() == content
