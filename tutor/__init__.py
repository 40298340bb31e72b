"""A textbook tutor that would rather say "I don't know" than be wrong.

The package owns everything but the pages: ingestion, shelves, retrieval, the safety layer and the audit log.
"""
from tutor.config import setup_offline

setup_offline()

__version__ = "0.1.0"
