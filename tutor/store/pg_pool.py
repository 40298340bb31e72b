"""The connections to the shared PostgreSQL database: one `psycopg_pool` pool per process and database URL, used by
the audit log (tutor/audit/pg_log.py) and the shelves (tutor/store/pg_shelf.py), sized and timed by the policy.

Why a pool: a new connection per audit write and per shelf write cost more than the statements (and a district's
server caps connections); a pool bounds them and keeps them warm. Why these settings: `prepare_threshold=None` and no
session state between transactions (a returned connection is `DISCARD ALL`ed), so the app also works behind a
transaction pooler (PgBouncer, `pool_mode = transaction`), where consecutive transactions of one client may run on
different server connections. What a transaction needs set (the pooler's statement and lock timeouts here, a
shelf namespace's search_path and HNSW's breadth in tutor/store/pg_shelf.py) is therefore set inside it with
`set_local` (`set_config(..., true)`, which ends with the transaction), never on the session: a session setting
would stay on whichever server connection PgBouncer lent, and be missing from the next one. TCP keepalives find a
server that vanished without closing its sockets; the connect timeout and the pool's wait bound how long a question
waits on a database that is down (it is then refused plainly, tutor/pipeline.py, and saved: the audit log's spool).
A connection held for long (the shelf store's reader) is not lent by the pool but opened with its settings
(`connect`), so it never holds a slot for good.
"""
from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import ClientCursor, sql
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool, PoolTimeout

from tutor.policy import Policy, load_policy

# psycopg_pool retries a failed connection after 1, 2, 4... s until this many seconds, then gives up and tries afresh
# (at once) on the next request: so a database back after an outage is found within a few seconds, not after a
# doubling wait grown over the whole outage
RECONNECT_GIVE_UP_S = 5.0
OUTAGE_WAIT_S = 0.5  # how long a borrower waits for a connection while the database is known to be unreachable
_pools: dict[str, ConnectionPool] = {}
_pools_lock = threading.Lock()


class PooledConnection(psycopg.Connection):
    """A connection lent by the pool: leaving its `with` block (committed or rolled back) or `close()` hands it back
    instead of closing it, so callers written for one connection per unit of work (`with connect() as con:`) need not
    change. A second `close()` of a connection already handed back does nothing (it may be lent to someone else)."""

    _lent = False  # out of the pool, with its borrower
    _closing = False  # the pool itself is closing it (expired, broken, or the pool shut down)
    _handed_back = False  # waiting in the pool
    vector_ready = False  # pgvector's types registered on it (tutor/store/pg_shelf.py; kept while it lives)

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        try:
            super().__exit__(exc_type, exc_val, exc_tb)  # commit, or roll back on an exception; a pooled one stays open
        finally:
            self.close()  # a broken one too: the pool then discards it and opens another

    def close(self) -> None:
        pool = getattr(self, "_pool", None)
        if self._lent and pool is not None:
            self._lent, self._handed_back = False, True  # now: the pool may reset it on a worker thread first
            pool.putconn(self)
        elif self._closing or not self._handed_back:  # closed by the pool, or never lent by one
            super().close()
        # else: already handed back, and maybe lent again: a second close must not touch it

    def __del__(self, *args: Any) -> None:
        # a borrower that dropped its connection without handing it back must not shrink the pool for ever
        if self._lent and getattr(self, "_pool", None) is not None and not self.closed:
            try:
                self.close()
                return
            except Exception:  # noqa: BLE001 - the interpreter may be shutting down
                pass
        super().__del__(*args)


class _Pool(ConnectionPool):
    """psycopg_pool's pool, telling its connections apart when it closes them itself."""

    def _close_connection(self, conn) -> None:
        conn._closing = True
        super()._close_connection(conn)

    def _add_to_pool(self, conn) -> None:
        conn._handed_back = True
        super()._add_to_pool(conn)

    local_settings: dict[str, str] = {}  # what each transaction sets first (the timeouts behind a transaction pooler)
    last_error = ""  # why the latest attempt to open a connection failed ("" after one that worked)

    def _connect(self, timeout: float | None = None):
        try:
            conn = super()._connect(timeout)
        except Exception as e:
            self.last_error = f"{type(e).__name__}: {e}"
            raise
        self.last_error = ""
        return conn

    def getconn(self, timeout: float | None = None):
        try:
            conn = super().getconn(timeout)
        except PoolTimeout as e:  # say why, not only that the wait ran out
            raise PoolTimeout(f"{e} (the last attempt to connect: {self.last_error})" if self.last_error
                              else str(e)) from None
        conn._lent, conn._handed_back = True, False
        return conn


def connection_kwargs(policy: Policy) -> dict[str, Any]:
    """What every connection is opened with: the connect timeout, TCP keepalives and (directly on PostgreSQL) the
    statement and lock timeouts as startup options; never prepared statements (PgBouncer's transaction mode)."""
    kw: dict[str, Any] = {
        "connect_timeout": max(1, math.ceil(policy.database_connect_timeout_s)),  # libpq takes whole seconds
        "keepalives": 1,
        "keepalives_idle": policy.database_keepalives_idle_s,
        "keepalives_interval": policy.database_keepalives_interval_s,
        "keepalives_count": policy.database_keepalives_count,
        "prepare_threshold": None,
    }
    if not policy.database_transaction_pooler:  # PgBouncer refuses startup options: set them on the role there
        kw["options"] = (f"-c statement_timeout={_ms(policy.database_statement_timeout_s)} "
                         f"-c lock_timeout={_ms(policy.database_lock_timeout_s)}")
    return kw


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def local_settings(policy: Policy) -> dict[str, str]:
    """The settings each transaction sets for itself: behind a transaction pooler the statement and lock timeouts
    the policy gives (which cannot travel as startup options there, and would not hold as session settings; a 0, no
    limit, is not sent, so a timeout set on the role still holds); none directly on PostgreSQL, where the startup
    options already set them for the connection's life."""
    if not policy.database_transaction_pooler:
        return {}
    timeouts = {"statement_timeout": policy.database_statement_timeout_s,
                "lock_timeout": policy.database_lock_timeout_s}
    return {name: f"{_ms(s)}ms" for name, s in timeouts.items() if s > 0}


def set_local(con: psycopg.Connection, settings: dict[str, str], schema: str | None = None) -> None:
    """Set `settings` (name -> value) for the connection's current transaction only, and put the Postgres schema
    `schema` first on its search_path (before the path's own entries, where the vector extension's type lives). The
    caller is inside a transaction: on an autocommit connection use `run_with_settings`."""
    statement = settings_sql(settings, schema)
    if statement is not None:
        con.execute(statement)


def settings_sql(settings: dict[str, str], schema: str | None = None) -> sql.Composed | None:
    """One SELECT of set_config(..., true) calls doing what `set_local` describes (None: nothing to set)."""
    parts = [sql.SQL("set_config({}, {}, true)").format(sql.Literal(k), sql.Literal(v)) for k, v in settings.items()]
    if schema:
        parts.append(sql.SQL("set_config('search_path', {} || ', ' || current_setting('search_path'), true)")
                     .format(sql.Literal(f'"{schema}"')))
    return sql.SQL("SELECT ") + sql.SQL(", ").join(parts) if parts else None


def run_with_settings(con: psycopg.Connection, query: str, args: Sequence | dict, settings: dict[str, str],
                      schema: str | None = None) -> list[tuple]:
    """The rows of `query` on an autocommit connection, run with `settings` and `schema` (as `set_local`) in force
    for it alone, in one round trip: the settings and the query go as one multi-statement message (client-side
    binding), which PostgreSQL runs as one implicit transaction, so set_config(..., true) holds for the query and
    ends with it. A BEGIN, SET and COMMIT around it cost three more round trips, each a wait for the server's turn
    on a busy machine (measured +9 ms a search on 2 shared cores, 2026-11-27)."""
    prefix = settings_sql(settings, schema)
    if prefix is None:
        return con.execute(query, args).fetchall()
    text = prefix.as_string(con)
    with ClientCursor(con) as cur:
        # the settings' literals are rendered already: a % in them must not be read as a placeholder
        cur.execute(f"{text.replace('%', '%%') if args else text}; {query}", args or None)
        cur.nextset()
        return cur.fetchall()


def _reset(con: psycopg.Connection) -> None:
    """A handed-back connection forgets its session (search_path, SETs, advisory locks held by mistake), so the next
    borrower, maybe the audit log, never inherits a shelf namespace's search_path."""
    con.autocommit = True
    con.execute("DISCARD ALL")
    con.autocommit = False


def pool_for(url: str, policy: Policy | None = None) -> ConnectionPool:
    """This process's pool for the database `url` (made on first use, with `policy`, default the loaded policy)."""
    with _pools_lock:
        pool = _pools.get(url)
        if pool is None or pool.closed:
            p = policy or load_policy()
            pool = _Pool(url, connection_class=PooledConnection, kwargs=connection_kwargs(p),
                         min_size=p.database_pool_min_size, max_size=max(p.database_pool_max_size,
                                                                         p.database_pool_min_size),
                         timeout=p.database_pool_timeout_s,
                         reset=None if p.database_transaction_pooler else _reset,
                         reconnect_timeout=RECONNECT_GIVE_UP_S, open=True, name=redact(url))
            pool.local_settings = local_settings(p)
            _pools[url] = pool
        return pool


def borrow(url: str, autocommit: bool = False) -> PooledConnection:
    """A connection from the pool (psycopg_pool.PoolTimeout, an OperationalError, when none comes within the policy's
    database_pool_timeout_s: the database is down or every connection is busy). Hand it back with `with` or close().
    Behind a transaction pooler a unit of work (not autocommit) starts its transaction with the timeouts set in it,
    so its `with` block is one transaction that holds them (a borrower that commits midway loses them)."""
    pool = pool_for(url)
    # while the last attempt to connect failed (an outage) a borrower waits briefly: a question is refused at once,
    # not after the full wait at each of its reads; its own request still makes the pool try again
    con = pool.getconn(min(OUTAGE_WAIT_S, pool.timeout) if pool.last_error else None)
    try:
        con.autocommit = autocommit
        con.row_factory = tuple_row  # the audit log asks for dicts on its own connections
        if not autocommit:
            set_local(con, pool.local_settings)
    except BaseException:
        con.close()
        raise
    return con


def transaction_settings(url: str) -> dict[str, str]:
    """What each transaction on the database `url` sets first (`local_settings` of its pool's policy)."""
    return dict(pool_for(url).local_settings)


def connect(url: str, autocommit: bool = True) -> psycopg.Connection:
    """A connection of its own, outside the pool but opened with the pool's settings: for what holds one for long (the
    shelf store's reader, a session lock), which must neither take a pool slot for ever nor, dropped after a failure,
    shrink the pool until the garbage collector finds it. Closed by its holder."""
    return psycopg.connect(url, autocommit=autocommit, **pool_for(url).kwargs)


def close_pool(url: str) -> None:
    """Close this process's pool for `url`, if any (before the database is dropped: a test's, a bench's)."""
    with _pools_lock:
        pool = _pools.pop(url, None)
    if pool is not None:
        pool.close()


def close_pools() -> None:
    """Close every pool of this process (tests; a process that is shutting down)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


def redact(url: str) -> str:
    """A database URL without its password, for messages and the maintainers' page."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(an unreadable database URL)"
    host = info.get("host") or "localhost"
    return f"postgresql://{info.get('user', '')}@{host}{':' + str(info['port']) if info.get('port') else ''}" \
           f"/{info.get('dbname', '')}"


def database_answers(url: str, timeout_s: float) -> tuple[bool, str]:
    """Whether the database answers `SELECT 1` within `timeout_s` on a connection of its own (not the pool's: a
    readiness probe asks about the database, and a busy pool is not an outage); (False, why) otherwise."""
    try:
        with psycopg.connect(url, connect_timeout=max(1, math.ceil(timeout_s)), prepare_threshold=None) as con:
            # LOCAL: for this transaction only, so behind PgBouncer no server connection keeps it
            con.execute(f"SET LOCAL statement_timeout = {_ms(timeout_s)}")
            con.execute("SELECT 1").fetchone()
        return True, "ok"
    except psycopg.Error as e:
        return False, f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
