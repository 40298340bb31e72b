"""Where things are, for a test in any folder under tests/: the repository, the test data, the bundled sample
library and the shared material beside the repository (../shared/data)."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
TUTOR = REPO / "tutor"
TEST_DATA = TESTS / "data"
SAMPLE_LIBRARY = REPO / "data" / "sample" / "library"
SHARED_DATA = REPO.parent / "shared" / "data"
