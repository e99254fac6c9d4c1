-- meeple's results database, schema version 1 (PRAGMA user_version = 1,
-- PRAGMA application_id = 0x4D454550, "MEEP"). Created by the program in
-- one transaction; src/results/mod.rs holds the migrations.

-- A person, by the name they gave (trimmed, 1-40 printable characters).
CREATE TABLE person (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL,            -- as first given
    fold TEXT NOT NULL UNIQUE      -- lower case: names are unique regardless of case
);

-- An engine player: a strategy at a level (both short texts).
CREATE TABLE engine (
    id       INTEGER PRIMARY KEY,
    strategy TEXT NOT NULL,        -- e.g. perfect
    level    TEXT NOT NULL,        -- e.g. 'depth 6', 'movetime 500'; '' for none
    UNIQUE (strategy, level)
);

-- A match of several rounds (a Mastermind match: roles alternate, the
-- codemaker scores the rows used, plus one if the code is not broken).
CREATE TABLE matches (
    id        INTEGER PRIMARY KEY,
    finished  TEXT NOT NULL,       -- UTC, e.g. 2026-11-25T19:33:52Z
    family    TEXT NOT NULL,       -- e.g. Mastermind
    game_type TEXT NOT NULL,       -- the GameType of its rounds
    rounds    INTEGER NOT NULL CHECK (rounds >= 1),  -- rounds planned
    result    TEXT NOT NULL CHECK (result IN ('first', 'second', 'draw')),
    ending    TEXT NOT NULL
              CHECK (ending IN ('normal', 'resignation', 'time', 'abandoned', 'adjudicated')),
    place     TEXT NOT NULL CHECK (place IN ('gui', 'play', 'other'))
);

-- A finished game: on its own (match_id NULL) or a round of a match.
CREATE TABLE game (
    id          INTEGER PRIMARY KEY,
    finished    TEXT NOT NULL,     -- UTC, e.g. 2026-11-25T19:33:52Z
    family      TEXT NOT NULL,     -- e.g. Connect4, Hive, Mastermind
    game_type   TEXT NOT NULL,     -- e.g. Connect4, Hive+MLP
    game_string TEXT NOT NULL,     -- the final GameString
    result      TEXT NOT NULL CHECK (result IN ('first', 'second', 'draw')),
    ending      TEXT NOT NULL
                CHECK (ending IN ('normal', 'resignation', 'time', 'abandoned', 'adjudicated')),
    place       TEXT NOT NULL CHECK (place IN ('gui', 'play', 'other')),
    match_id    INTEGER REFERENCES matches (id),
    round       INTEGER,           -- 1, 2, ... within its match
    CHECK ((match_id IS NULL) = (round IS NULL)),
    UNIQUE (match_id, round)
);

-- The two seats of a game: a person or an engine each. Seat 1 is the
-- record's first seat (side 0 of the game; in a round, the match's first
-- player). result 'first' means seat 1 won.
CREATE TABLE game_seat (
    game_id   INTEGER NOT NULL REFERENCES game (id),
    seat      INTEGER NOT NULL CHECK (seat IN (1, 2)),
    side      TEXT NOT NULL,       -- the game's name of the side: Yellow, White, Breaker
    person_id INTEGER REFERENCES person (id),
    engine_id INTEGER REFERENCES engine (id),
    points    INTEGER,             -- a round of a match: the seat's points in it
    PRIMARY KEY (game_id, seat),
    CHECK ((person_id IS NULL) <> (engine_id IS NULL))
) WITHOUT ROWID;

-- The two players of a match and their total points.
CREATE TABLE match_seat (
    match_id  INTEGER NOT NULL REFERENCES matches (id),
    seat      INTEGER NOT NULL CHECK (seat IN (1, 2)),
    person_id INTEGER REFERENCES person (id),
    engine_id INTEGER REFERENCES engine (id),
    points    INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat),
    CHECK ((person_id IS NULL) <> (engine_id IS NULL))
) WITHOUT ROWID;

CREATE INDEX game_seat_person ON game_seat (person_id);
CREATE INDEX game_seat_engine ON game_seat (engine_id);
CREATE INDEX match_seat_person ON match_seat (person_id);
CREATE INDEX match_seat_engine ON match_seat (engine_id);

-- What the leaderboard counts: one row per seat of every contest, a game
-- outside any match or a whole match (its rounds do not count on their
-- own), with the opponent and the seat's outcome.
CREATE VIEW standing AS
SELECT 'game' AS kind, g.id AS contest, g.family AS family,
       s.person_id AS person_id, s.engine_id AS engine_id,
       o.person_id AS opp_person_id, o.engine_id AS opp_engine_id,
       CASE WHEN g.result = 'draw' THEN 'draw'
            WHEN g.result = (CASE s.seat WHEN 1 THEN 'first' ELSE 'second' END) THEN 'win'
            ELSE 'loss' END AS outcome
  FROM game g
  JOIN game_seat s ON s.game_id = g.id
  JOIN game_seat o ON o.game_id = g.id AND o.seat <> s.seat
 WHERE g.match_id IS NULL
UNION ALL
SELECT 'match', m.id, m.family,
       s.person_id, s.engine_id, o.person_id, o.engine_id,
       CASE WHEN m.result = 'draw' THEN 'draw'
            WHEN m.result = (CASE s.seat WHEN 1 THEN 'first' ELSE 'second' END) THEN 'win'
            ELSE 'loss' END
  FROM matches m
  JOIN match_seat s ON s.match_id = m.id
  JOIN match_seat o ON o.match_id = m.id AND o.seat <> s.seat;
