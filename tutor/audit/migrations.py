"""The SQLite audit database's numbered migrations (tutor/audit/log.py runs them; tutor/audit/pg_log.py numbers the
PostgreSQL dialect's alike). Each runs once, in order; a database records how many it has run."""

MIGRATIONS: list[str] = [
    # 1: the questions table
    """
    CREATE TABLE questions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts REAL NOT NULL,
        question TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        mode TEXT NOT NULL,
        decision TEXT NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        confidence REAL NOT NULL,
        answer TEXT NOT NULL,
        answerer TEXT NOT NULL,
        llm_called INTEGER NOT NULL,
        decided_by TEXT NOT NULL,
        best_score REAL,
        nearest_chapter TEXT,
        nearest_section TEXT,
        failed_checks TEXT,
        total_ms REAL,
        error TEXT,
        result_json TEXT NOT NULL
    );
    CREATE INDEX questions_ts ON questions(ts);
    CREATE INDEX questions_shelf ON questions(class, subject);
    """,
    # 2: the passage a selected-text question was asked about
    "ALTER TABLE questions ADD COLUMN selected_text TEXT;",
    # 3: a follow-up as retrieval and the gate read it ("question" stays as the student typed it)
    "ALTER TABLE questions ADD COLUMN resolved_question TEXT;",
    # 4: the turns of each student's open conversation per shelf, so a reload finds its chat (`keep_turn`, `turns`);
    # beside the questions table, which stays append-only: "New conversation" deletes these rows, never a question
    """
    CREATE TABLE conversation_turns (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        ts REAL NOT NULL,
        turn_json TEXT NOT NULL
    );
    CREATE INDEX conversation_turns_key ON conversation_turns(conversation, class, subject);
    """,
    # 5: the staff sign-in throttle, one row per (account, client) key (tutor/audit/sign_in.py)
    """
    CREATE TABLE sign_in_failures (
        key TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        wait_until REAL NOT NULL,
        last_failure REAL NOT NULL
    );
    """,
    # 6: the teachers' page counts in the database (tutor/audit/queries.py): indexes that answer its counts alone
    """
    CREATE INDEX questions_refusals
        ON questions(decision, class, subject, reason, nearest_chapter, nearest_section, ts);
    CREATE INDEX questions_ts_decision ON questions(ts, decision);
    CREATE INDEX questions_reason ON questions(reason);
    """,
    # 7: each spooled question's id (tutor/audit/log.py), so a replay writes it once: one cut off between its commit
    # and the spool's removal, or two processes replaying one spool file, find it taken and skip it
    """
    ALTER TABLE questions ADD COLUMN spool_id TEXT;
    CREATE UNIQUE INDEX questions_spool_id ON questions(spool_id);
    """,
    # 8: sentences held back at ingest that a maintainer released (tutor/audit/releases.py): who, when, where, and
    # for what; a withdrawal fills withdrawn_by/withdrawn_at (a row is never deleted), a new release adds a row
    """
    CREATE TABLE sentence_releases (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        digest TEXT NOT NULL,
        sentence TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        file TEXT NOT NULL,
        page INTEGER NOT NULL,
        reason TEXT NOT NULL,
        released_by TEXT NOT NULL,
        released_at REAL NOT NULL,
        withdrawn_by TEXT,
        withdrawn_at REAL
    );
    CREATE UNIQUE INDEX sentence_releases_active
        ON sentence_releases(digest, class, subject, file, page) WHERE withdrawn_at IS NULL;
    """,
]
