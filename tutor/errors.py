"""Every error the tutor raises on purpose, each with a message a person can act on.

Callers catch `TutorError` for anything expected; anything else is a bug.
"""
from __future__ import annotations


class TutorError(Exception):
    """Base of all expected errors."""


class PdfRefused(TutorError):
    """A whole file cannot be ingested; names the file and the cause."""

    def __init__(self, file: str, cause: str, code: str):
        self.file, self.cause, self.code = file, cause, code
        super().__init__(f"{file}: {cause}")

    def __reduce__(self):  # crosses process boundaries (extraction runs in worker processes)
        return (PdfRefused, (self.file, self.cause, self.code))


class ShelfNotFound(TutorError):
    """No shelf for the class and subject asked for."""

    def __init__(self, klass: str, subject: str, available: list[str] | None = None):
        self.klass, self.subject = klass, subject
        hint = f" Shelves available: {', '.join(available)}." if available else " The library is empty."
        super().__init__(f"There is no shelf for class {klass} {subject}.{hint}")


class EmptyQuestion(TutorError):
    """The question has no words in it."""

    def __init__(self) -> None:
        super().__init__("The question is empty: type a question about your textbook.")


class PolicyError(TutorError):
    """A policy value is impossible (out of range, wrong type, unknown name)."""


class IngestError(TutorError):
    """Ingestion failed as a whole (bad arguments, unreadable folder)."""


class QuestionTimeout(TutorError):
    """A question ran past the policy's time budget; raised between stages, so the work stops there."""

    def __init__(self, stage: str, budget_s: float):
        self.stage, self.budget_s = stage, budget_s
        super().__init__(f"the question ran past its time budget of {budget_s:g} s (stopped after {stage})")


class ShelfDamaged(TutorError):
    """A shelf's files cannot be read or fail their checksums: the shelf is isolated until it is rolled back or
    rebuilt. `detail` is for maintainers (it names files); students see only the reason code."""

    def __init__(self, klass: str, subject: str, detail: str, version: str | None = None):
        self.klass, self.subject, self.detail, self.version = klass, subject, detail, version
        super().__init__(f"shelf class {klass} {subject} is damaged: {detail}")


class DatabaseSetupError(TutorError):
    """`TUTOR_DATABASE_URL` names a database this installation cannot use (not a PostgreSQL URL, or the `postgres`
    extra not installed)."""

    @classmethod
    def driver_missing(cls, e: ImportError) -> DatabaseSetupError:
        return cls(f"a database URL is set but the PostgreSQL driver is missing ({e}): install the `postgres` extra "
                   "(pip install -e '.[postgres]')")


class ShelfBusy(TutorError):
    """Another writer holds a shelf (two ingests of one shelf at once cannot both win)."""

    def __init__(self, klass: str, subject: str):
        self.klass, self.subject = klass, subject
        super().__init__(f"Another ingest of class {klass} {subject} is running right now (in this or another app "
                         "process); this one was not started. Try again when it has finished.")


class DiskFull(TutorError):
    """A write found the disk full; `outcome` says what that left as it was (the write itself is undone)."""

    def __init__(self, where, outcome: str):
        self.where, self.outcome = str(where), outcome
        super().__init__(f"the disk holding {where} is full (no space left on device): {outcome}; free some space "
                         "and try again")


def is_disk_full(e: BaseException) -> bool:
    """Whether an error is a full disk or quota (OSError ENOSPC/EDQUOT, or a library's message that says so)."""
    import errno

    return (isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)) or "No space left on device" in str(e)


def is_database_unreachable(e: BaseException) -> bool:
    """Whether an error says the shared PostgreSQL database cannot be reached now (connection refused or dropped, the
    server shutting down, no pooled connection in time: psycopg's OperationalError and InterfaceError), as opposed to
    a bug, or to a server that answered that it gave up on a statement (is_database_too_slow). Without psycopg
    imported no database was used, so nothing can be unreachable."""
    import sys

    psycopg = sys.modules.get("psycopg")
    return (psycopg is not None and isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError))
            and not is_database_too_slow(e))


def is_database_too_slow(e: BaseException) -> bool:
    """Whether the database server, up and answering, cancelled a statement for time: statement_timeout
    (QueryCanceled) or lock_timeout (LockNotAvailable). psycopg files both under OperationalError, as it does a
    dropped connection, but nothing is down: the question is not saved for later, it is refused as busy."""
    import sys

    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(e, (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable))
