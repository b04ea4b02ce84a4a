"""Nothing the user wrote is lost on the real tree: every comment of 0.5.12.post1 is in its migration,
except those inside what the migration deleted whole (see tests/codemods/test_comments_kept.py)."""

from __future__ import annotations

import pytest
from test_comments_kept import describe, lost_comments

pytestmark = pytest.mark.corpus


def test_every_comment_of_the_tree_is_kept(trees):
    changed = sorted(path for path, text in trees["new"].items() if trees["old"].get(path) != text)
    assert changed, "the migration changed no file"
    lost = {
        path: found
        for path in changed
        if (found := lost_comments(trees["old"][path].decode("utf-8"), trees["new"][path].decode("utf-8")))
    }
    assert not lost, "\n".join(describe(found, path) for path, found in lost.items())
