-- meeple's results database, schema version 2, from version 1 in one
-- transaction. After this script the program recomputes every person's
-- `fold` (the key of src/results/names.rs: compatibility caseless, invisible
-- characters dropped) and merges the people whose keys are now equal
-- (src/results/schema.rs, refold_people).

-- Each seat's accuracy in a reviewed game: 0 to 100, NULL if not reviewed.
ALTER TABLE game_seat ADD COLUMN accuracy REAL
    CHECK (accuracy IS NULL OR (accuracy >= 0 AND accuracy <= 100));

-- The key of every result stored, a game or a match: a result kept in the
-- pending folder while the database could not be written is stored once,
-- whichever process stores it and however often it is tried.
CREATE TABLE result_key (
    key      TEXT PRIMARY KEY,
    game_id  INTEGER REFERENCES game (id),
    match_id INTEGER REFERENCES matches (id),
    CHECK ((game_id IS NULL) <> (match_id IS NULL))
) WITHOUT ROWID;

-- What the leaderboard counts: as in version 1, plus each seat's accuracy
-- (acc_sum over acc_n reviewed games: a game's own, or a match's rounds');
-- a contest between two spellings of one person (merged by the new key)
-- counts for neither, and is kept.
DROP VIEW standing;
CREATE VIEW standing AS
SELECT 'game' AS kind, g.id AS contest, g.family AS family,
       s.person_id AS person_id, s.engine_id AS engine_id,
       o.person_id AS opp_person_id, o.engine_id AS opp_engine_id,
       CASE WHEN g.result = 'draw' THEN 'draw'
            WHEN g.result = (CASE s.seat WHEN 1 THEN 'first' ELSE 'second' END) THEN 'win'
            ELSE 'loss' END AS outcome,
       s.accuracy AS acc_sum, (s.accuracy IS NOT NULL) AS acc_n
  FROM game g
  JOIN game_seat s ON s.game_id = g.id
  JOIN game_seat o ON o.game_id = g.id AND o.seat <> s.seat
 WHERE g.match_id IS NULL AND (s.person_id IS NULL OR s.person_id IS NOT o.person_id)
UNION ALL
SELECT 'match', m.id, m.family,
       s.person_id, s.engine_id, o.person_id, o.engine_id,
       CASE WHEN m.result = 'draw' THEN 'draw'
            WHEN m.result = (CASE s.seat WHEN 1 THEN 'first' ELSE 'second' END) THEN 'win'
            ELSE 'loss' END,
       (SELECT sum(r.accuracy) FROM game rg JOIN game_seat r ON r.game_id = rg.id
         WHERE rg.match_id = m.id AND r.seat = s.seat),
       (SELECT count(r.accuracy) FROM game rg JOIN game_seat r ON r.game_id = rg.id
         WHERE rg.match_id = m.id AND r.seat = s.seat)
  FROM matches m
  JOIN match_seat s ON s.match_id = m.id
  JOIN match_seat o ON o.match_id = m.id AND o.seat <> s.seat
 WHERE s.person_id IS NULL OR s.person_id IS NOT o.person_id;
