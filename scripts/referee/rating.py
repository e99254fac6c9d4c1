"""Ratings: Elo from a score, error bars, LOS, SPRT, and maximum-likelihood
ratings of many players (formulas of shared/reference/protocol.md)."""

import math

LN10_800 = 800.0 / math.log(10.0)


def elo_from_score(mu):
    """Elo difference for an expected score mu (0 < mu < 1)."""
    if mu <= 0.0:
        return -math.inf
    if mu >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / mu - 1.0)


def los(wins, losses):
    """Likelihood of superiority of the side with `wins` wins."""
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


def score_stats(wins, draws, losses):
    """Score, Elo with its 95% error bar, LOS and draw ratio."""
    n = wins + draws + losses
    if n == 0:
        return {"n": 0, "score": 0.5, "elo": 0.0, "error": math.inf, "los": 0.5,
                "draw_ratio": 0.0}
    w, d, l = wins / n, draws / n, losses / n
    mu = w + d / 2.0
    s2 = w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu ** 2
    delta = 1.96 * math.sqrt(s2 / n)
    lo, hi = elo_from_score(mu - delta), elo_from_score(mu + delta)
    error = (hi - lo) / 2.0 if math.isfinite(hi - lo) else math.inf
    return {"n": n, "score": mu, "elo": elo_from_score(mu), "error": error,
            "los": los(wins, losses), "draw_ratio": d}


# ---------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------

SPRT_MODELS = ("normalized", "logistic")


def sprt_bounds(alpha, beta):
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(wins, draws, losses, elo0, elo1):
    """The `logistic` model: generalized log-likelihood ratio of H1 (elo1)
    against H0 (elo0), Elo on the logistic scale, game by game."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    w, d, l = wins / n, draws / n, losses / n
    mu = w + d / 2.0
    s2 = w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu ** 2
    if s2 <= 0.0:
        # All results equal: no variance estimate yet, so no evidence.
        return 0.0
    s0 = 1.0 / (1.0 + 10.0 ** (-elo0 / 400.0))
    s1 = 1.0 / (1.0 + 10.0 ** (-elo1 / 400.0))
    return n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * s2)


def sprt_llr_normalized(counts, elo0, elo1):
    """The `normalized` model (fastchess's default): elo0/elo1 are
    normalized Elo (nElo); counts are the frequencies of the outcomes
    scored 0, 1/(k-1), ..., 1 (k = 3: a game's loss/draw/win; k = 5: a game
    pair's pentanomial 0, 1/4, 1/2, 3/4, 1). LLR = N/2 * ln(var0/var1), where
    var_i is the variance of the outcomes about the score nElo_i maps to."""
    n = sum(counts)
    if n == 0:
        return 0.0
    k = len(counts)
    if sum(1 for c in counts if c) <= 1:
        # One outcome only: no variance to measure yet; a half game of
        # each outcome (fastchess regularizes so too) keeps the test going.
        counts = [c + 0.5 for c in counts]
        n = sum(counts)
    xs = [i / (k - 1.0) for i in range(k)]
    ps = [c / n for c in counts]
    mu = sum(p * x for p, x in zip(ps, xs))
    var = sum(p * (x - mu) ** 2 for p, x in zip(ps, xs))
    if var <= 0.0:
        return 0.0
    # One game pair counts as two games: nElo is defined per game.
    scale = math.sqrt(2.0 * var) if k == 5 else math.sqrt(var)
    mus = [0.5 + e / LN10_800 * scale for e in (elo0, elo1)]
    vs = [sum(p * (x - m) ** 2 for p, x in zip(ps, xs)) for m in mus]
    if vs[0] <= 0 or vs[1] <= 0:
        return 0.0
    return 0.5 * n * math.log(vs[0] / vs[1])


def sprt_state(sprt, wdl, ptnml):
    """(llr, lower, upper, model text) for the SPRT settings `sprt`
    (elo0, elo1, alpha, beta, model), the W/D/L of the first engine and its
    pentanomial counts."""
    lo, hi = sprt_bounds(sprt["alpha"], sprt["beta"])
    if sprt.get("model", "normalized") == "logistic":
        return sprt_llr(*wdl, sprt["elo0"], sprt["elo1"]), lo, hi, "logistic, trinomial"
    if sum(ptnml):
        return (sprt_llr_normalized(ptnml, sprt["elo0"], sprt["elo1"]), lo, hi,
                "normalized, pentanomial over %d pairs" % sum(ptnml))
    w, d, l = wdl
    return (sprt_llr_normalized([l, d, w], sprt["elo0"], sprt["elo1"]), lo, hi,
            "normalized, trinomial")


def sprt_verdict(llr, lo, hi):
    return "H1 was accepted" if llr >= hi else "H0 was accepted" if llr <= lo else "continue"


def pentanomial(rows, name):
    """Counts of game pairs (indices 2k, 2k+1 of one pairing: one opening,
    colours swapped) in which `name` scored 0, 0.5, 1, 1.5 and 2 points.
    rows: (pair key, winner name or None) with pair key = (pairing, k)."""
    by_pair = {}
    for key, winner in rows:
        by_pair.setdefault(key, []).append(winner)
    counts = [0] * 5
    for key in sorted(by_pair):
        results = by_pair[key]
        if len(results) == 2:
            pts = sum(2 if w == name else 1 if w is None else 0 for w in results)
            counts[pts] += 1
    return counts


def fmt_elo(x):
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return "%.1f" % (x + 0.0) if round(x, 1) != 0 else "0.0"


def rating_lines(name_a, name_b, wins, draws, losses, ptnml=None, sprt=None):
    """The two-player report printed at intervals and at the end."""
    st = score_stats(wins, draws, losses)
    lines = ["Score of %s vs %s: %d - %d - %d  [%.3f] %d"
             % (name_a, name_b, wins, losses, draws, st["score"], st["n"])]
    if ptnml is not None:
        lines.append("Ptnml(0-2) of %s over game pairs (same opening, colours swapped): %s"
                     % (name_a, ptnml))
    lines.append("Elo difference: %s +/- %s, LOS: %.1f %%, DrawRatio: %.1f %%"
                 % (fmt_elo(st["elo"]), fmt_elo(st["error"]), 100 * st["los"],
                    100 * st["draw_ratio"]))
    if sprt:
        llr, lo, hi, model = sprt_state(sprt, (wins, draws, losses), ptnml or [0] * 5)
        lines.append("SPRT (%s): llr %.3f, lbound %.3f, ubound %.3f (elo0=%g elo1=%g) - %s"
                     % (model, llr, lo, hi, sprt["elo0"], sprt["elo1"],
                        sprt_verdict(llr, lo, hi)))
    return lines


# ---------------------------------------------------------------------------
# Many players: maximum likelihood (Ordo-like)
# ---------------------------------------------------------------------------

K = math.log(10) / 400.0


def _solve(matrix, vector):
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        p = a[col][col]
        if abs(p) < 1e-300:
            raise ZeroDivisionError("singular")
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col] / p
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit_ratings(games, players, iterations=50):
    """Elo ratings by maximum likelihood (logistic model, a draw = half a
    win), with 95 % error bars. Each player gets one virtual draw against a
    0-rated anchor (a weak prior) so that perfect scores stay finite; the
    ratings are then shifted to average 0. games: (a, b, score of a).
    Returns {player: (rating, error)}; the error is 1.96 standard deviations
    from the inverse of the likelihood's curvature (the Fisher information)."""
    players = list(players)
    idx = {p: i for i, p in enumerate(players)}
    n = len(players)
    if n == 0:
        return {}
    r = [0.0] * n
    hess = None
    for _ in range(iterations):
        grad = [0.0] * n
        hess = [[0.0] * n for _ in range(n)]
        for a, b, s in games:
            i, j = idx[a], idx[b]
            e = 1.0 / (1.0 + math.exp(-K * (r[i] - r[j])))
            g = K * (s - e)
            h = K * K * e * (1 - e)
            grad[i] += g
            grad[j] -= g
            hess[i][i] += h
            hess[j][j] += h
            hess[i][j] -= h
            hess[j][i] -= h
        for i in range(n):  # the prior: a draw against a 0-rated anchor
            e = 1.0 / (1.0 + math.exp(-K * r[i]))
            grad[i] += K * (0.5 - e)
            hess[i][i] += K * K * e * (1 - e)
        step = _solve(hess, grad)
        biggest = max(abs(x) for x in step)
        damp = min(1.0, 200.0 / biggest) if biggest > 0 else 1.0
        r = [r[i] + damp * step[i] for i in range(n)]
        if biggest < 1e-6:
            break
    mean = sum(r) / n
    # The covariance of the ratings is the inverse of the curvature; the
    # error bar is that of r_i - mean(r), the rating as printed.
    try:
        cov = [_solve(hess, [1.0 if k == i else 0.0 for k in range(n)]) for i in range(n)]
    except ZeroDivisionError:
        cov = None
    out = {}
    for i, p in enumerate(players):
        if cov is None:
            out[p] = (r[i] - mean, math.inf)
            continue
        var = (cov[i][i] - 2.0 / n * sum(cov[i]) + sum(map(sum, cov)) / (n * n))
        out[p] = (r[i] - mean, 1.96 * math.sqrt(var) if var > 0 else 0.0)
    return out


def table_lines(results, title="Ratings (maximum likelihood, average 0, 95 % error bars)"):
    """A rating table for many players. results: (a, b, score of a) per game."""
    players, stats = [], {}
    for a, b, s in results:
        for p in (a, b):
            if p not in stats:
                players.append(p)
                stats[p] = [0, 0.0, 0]
        stats[a][0] += 1
        stats[b][0] += 1
        stats[a][1] += s
        stats[b][1] += 1 - s
        if s == 0.5:
            stats[a][2] += 1
            stats[b][2] += 1
    fit = fit_ratings(results, players)
    lines = [title + ":",
             "%-4s %-24s %7s %7s %6s %7s %6s" % ("rank", "name", "elo", "+/-", "games",
                                                 "score", "draw")]
    ranked = sorted(players, key=lambda p: (-fit[p][0], p))
    for k, p in enumerate(ranked, 1):
        g, pts, d = stats[p]
        lines.append("%-4d %-24s %7.1f %7.1f %6d %6.1f%% %5.1f%%"
                     % (k, p, fit[p][0], fit[p][1], g, 100.0 * pts / g, 100.0 * d / g))
    return lines
