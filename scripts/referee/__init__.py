"""The referee: pairs engines (or people) at any meeple game and keeps the results.

`scripts/referee.py` is the entry point; the code lives in this package, one
module per concern:

  cli          the command line: arguments, their checks, the subcommands
  seats        who sits at the board: engine seats, people (terminal, remote)
  protocols    how to talk to an engine: meeple, UHP, UCI, UGI clients
  process      a child process speaking lines (bounded in length)
  arbiter      the referee's own meeple process that keeps each game
  gamestring   `GameType;GameState;Turn;moves...`
  clocks       time controls, the clock of each seat, the time margin
  adjudication draw/resign rules from the engines' reported scores
  game         one game: the move loop
  match        the tournament: schedule, workers, reports, SPRT stop
  openings     openings from random plies or from files
  rating       Elo, error bars, LOS, SPRT, maximum-likelihood ratings
  store        the SQLite database
  pgn          PGN export (and reading it back)
  review       --annotate: each game reviewed by meeple, its PGN annotations
  safefile     the files written are regular files, never opened through a link
  errors       the exceptions shared by all of these
  cluster      --cluster: the games as tasks on a Dask cluster (coordinator)
  worker       what a cluster's worker runs: one game a task
  booktask     what a worker runs for book_cluster.py: solving book positions

Python 3 standard library only, except cluster.py (Dask, imported only for
--cluster).
"""
