"""Our neural network (numba): inputs, inference and TD(lambda) self-play training.

Two nets of the same shape, chosen per position: *contact* and *race* (no
contact left, :func:`playout.backgammon.board.is_race`).  Each is one hidden
layer of sigmoid units and five sigmoid outputs: P(win), P(win gammon),
P(win backgammon), P(lose gammon), P(lose backgammon) for the side *to act*
in a pre-roll board (gnubg's and Tesauro's output set).

Inputs (``N_INPUTS`` = 244): 101 for each side (side to act first), from that
side's own point of view:

* points 1..24: Tesauro's truncated unary code, 4 units per point
  (n >= 1, n >= 2, n >= 3, (n - 3) / 2 if n > 3) -- Tesauro, "TD-Gammon, a
  self-teaching backgammon program" (1995), as in gnubg's "base" inputs;
* bar / 2 and borne-off / 15;
* three hand features (Berliner's/gnubg's spirit): pip count / 100, home-board
  points made / 6, longest run of made points (a prime) / 6;

then (inputs 202..205) four shot features, :mod:`playout.backgammon.features`:
the side to act hits the opponent (fraction of 36 rolls, mean pip loss / 25),
and the opponent hits the side to act (the same two);

then (inputs 206..217) six *blockade* features per side (side to act first),
:func:`playout.backgammon.blockade.escape_inputs`, after gnubg's contact-net
inputs of the same names (gnubg ``eval.c``: its input list and ``Escapes()``):
``I_BACKESCAPES`` (escapes of the opponent's rearmost checker past the side's
points / 36), ``I_ACONTAIN`` and its square (1 - the fewest escapes / 36 over
the opponent's positions from the side's 9 point back to that rearmost
checker), ``I_CONTAIN`` and its square (the same from the 9 point to the 1
point), ``I_MOBILITY`` (the side's checkers outside its home board: escapes x
distance from home, / 3600);

then (inputs 218..243) thirteen *timing / crunch / back-game* features per side
(side to act first), :func:`playout.backgammon.contact.contact_inputs`, after
the rest of gnubg's contact-net inputs (``eval.c``, ``CalculateHalfInputs``):
``I_BREAK_CONTACT``, ``I_FREEPIP``, ``I_TIMING``, ``I_BACK_CHEQUER``,
``I_BACK_ANCHOR``, ``I_FORWARD_ANCHOR``, ``I_MOMENT2``, ``I_ENTER``,
``I_ENTER2``, ``I_BACKBONE``, ``I_BACKG``, ``I_BACKG1``, ``I_BACKRESCAPES``
(definitions and scalings in that function's docstring).

A network saved with the 202, 206 or 218 inputs of earlier versions loads with
zero weights for the inputs it lacks, so its outputs are unchanged.

Weights are arrays ``W1[S, I, H]``, ``b1[S, H]``, ``W2[S, H, 5]``, ``b2[S, 5]``
with S = 2 slices (index 0 contact, 1 race) or 3 (2 = crashed: a contact position in
which a side is crashed, :func:`playout.backgammon.classes.is_crashed`, gnubg's separate
crashed net); :func:`playout.backgammon.classes.net_index` picks the slice in every
kernel.  :func:`combine_crashed` (``scripts/bg_combine_crashed.py``) builds a three-slice
file from a general net and a crashed specialist.  TD training (:func:`td_train`) and
supervised training use two slices.  Files are ``.npz`` loaded with
``allow_pickle=False``.  Inference is sparse over the inputs (most are 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from playout.backgammon.board import (
    STARTING_BOARD,
    flip,
    game_result,
    is_race,
    opening_roll,
)
from playout.backgammon.classes import net_index
from playout.backgammon.features import (
    N_CONTACT_SIDE,
    N_ESCAPE_SIDE,
    contact_inputs,
    escape_inputs,
    shot_inputs,
)
from playout.backgammon.moves import MAX_MOVES, legal_moves_into
from playout.jitcache import flush_stale_caches, siblings

N_BASE_INPUTS = 202  # inputs of networks saved before the shot features
N_SHOT_INPUTS = 206  # inputs of networks saved before the blockade features (= their first row)
N_ESC_INPUTS = N_SHOT_INPUTS + 2 * N_ESCAPE_SIDE  # 218: networks saved before the timing features
N_INPUTS = N_ESC_INPUTS + 2 * N_CONTACT_SIDE  # 244
N_OUT = 5


@njit(cache=True)
def _side_inputs(b, sign, x, base):
    """Encode one side (sign +1 = mover as stored, -1 = opponent) into x[base:base+101]."""
    pips = 0
    home = 0
    run = 0
    best_run = 0
    on_board = 0
    for q in range(1, 25):
        # q in the side's own numbering
        p = q if sign > 0 else 25 - q
        n = int(b[p]) * sign
        if n < 0:
            n = 0
        k = base + 4 * (q - 1)
        if n >= 1:
            x[k] = 1.0
            on_board += n
            pips += n * q
        if n >= 2:
            x[k + 1] = 1.0
            if q <= 6:
                home += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        if n >= 3:
            x[k + 2] = 1.0
        if n > 3:
            x[k + 3] = (n - 3) * 0.5
    bar = int(b[25]) if sign > 0 else int(b[0])
    x[base + 96] = bar * 0.5
    x[base + 97] = (15 - on_board - bar) / 15.0
    x[base + 98] = (pips + 25 * bar) / 100.0
    x[base + 99] = home / 6.0
    x[base + 100] = best_run / 6.0


@njit(cache=True)
def encode(b, x):
    """Fill ``x`` (float64[N_INPUTS], zeroed here) with the inputs of board26 ``b``."""
    x[:] = 0.0
    _side_inputs(b, 1, x, 0)
    _side_inputs(b, -1, x, 101)
    if x.shape[0] > N_BASE_INPUTS:
        shot_inputs(b, x, N_BASE_INPUTS, False)
    if x.shape[0] > N_SHOT_INPUTS:
        escape_inputs(b, x, N_SHOT_INPUTS, False)
    if x.shape[0] > N_ESC_INPUTS:
        contact_inputs(b, x, N_ESC_INPUTS, False)


@njit(cache=True)
def encode_flipped(b, x):
    """Inputs of ``flip(b)`` (the opponent to act) without building the flipped board."""
    x[:] = 0.0
    _side_inputs(b, -1, x, 0)
    _side_inputs(b, 1, x, 101)
    if x.shape[0] > N_BASE_INPUTS:
        shot_inputs(b, x, N_BASE_INPUTS, True)
    if x.shape[0] > N_SHOT_INPUTS:
        escape_inputs(b, x, N_SHOT_INPUTS, True)
    if x.shape[0] > N_ESC_INPUTS:
        contact_inputs(b, x, N_ESC_INPUTS, True)


_SIG_STEP = 0.01
_SIG_MAX = 16.0
#: 1 / (1 + exp(-v)) tabulated on [-16, 16] every 0.01 (gnubg also tabulates its sigmoid);
#: linear interpolation keeps the error below 2e-6.  Outside the table the end values are
#: returned (error below 1.2e-7 = 1 / (1 + e^16)): longer-trained nets push ~6% of their
#: hidden units past 16, where calling ``exp`` made evaluations measurably slower.
_SIG_TABLE = 1.0 / (1.0 + np.exp(-np.arange(-_SIG_MAX, _SIG_MAX + 2 * _SIG_STEP, _SIG_STEP)))
_SIG_LAST = int(round(2 * _SIG_MAX / _SIG_STEP))  # the index of sigmoid(16)


@njit(cache=True, fastmath=True)
def _sigmoid(v):
    if v <= -_SIG_MAX:
        return _SIG_TABLE[0]
    if v >= _SIG_MAX:
        return _SIG_TABLE[_SIG_LAST]
    f = (v + _SIG_MAX) * (1.0 / _SIG_STEP)
    i = int(f)
    t = f - i
    return _SIG_TABLE[i] + t * (_SIG_TABLE[i + 1] - _SIG_TABLE[i])


@njit(cache=True, fastmath=True)
def forward(W1, b1, W2, b2, net, x, h, out):
    """One net's outputs for inputs ``x``: fills hidden ``h[H]`` and ``out[5]`` (raw sigmoids)."""
    H = b1.shape[1]
    Wn = W1[net]
    for j in range(H):
        h[j] = b1[net, j]
    for i in range(min(x.shape[0], Wn.shape[0])):  # a trimmed net reads its own inputs only
        xi = x[i]
        if xi != 0.0:
            row = Wn[i]
            if xi == 1.0:
                for j in range(H):
                    h[j] += row[j]
            else:
                for j in range(H):
                    h[j] += row[j] * xi
    for j in range(H):
        h[j] = _sigmoid(h[j])
    V = W2[net]
    for k in range(N_OUT):
        s = b2[net, k]
        for j in range(H):
            s += V[j, k] * h[j]
        out[k] = _sigmoid(s)


@njit(cache=True)
def sanitize(out):
    """Make five raw outputs consistent: wbg <= wg <= win, lbg <= lg <= 1 - win."""
    w = min(max(out[0], 0.0), 1.0)
    out[0] = w
    out[1] = min(out[1], w)
    out[2] = min(out[2], out[1])
    out[3] = min(out[3], 1.0 - w)
    out[4] = min(out[4], out[3])


@njit(cache=True)
def terminal_probs(result, out):
    """Five probabilities for the side to act given a finished game's result from its view."""
    out[:] = 0.0
    if result > 0:
        out[0] = 1.0
        if result >= 2:
            out[1] = 1.0
        if result >= 3:
            out[2] = 1.0
    else:
        if result <= -2:
            out[3] = 1.0
        if result <= -3:
            out[4] = 1.0


@njit(cache=True)
def evaluate_one(W1, b1, W2, b2, b, x, h, out):
    """Probabilities for the side to act in pre-roll board ``b`` (terminal boards exactly)."""
    r = game_result(b)
    if r != 0:
        terminal_probs(r, out)
        return
    encode(b, x)
    forward(W1, b1, W2, b2, net_index(W1, b), x, h, out)
    sanitize(out)


@njit(cache=True)
def evaluate_batch(W1, b1, W2, b2, boards, out):
    """``out[n, 5]`` = probabilities for the side to act in each of ``boards[n, 26]``."""
    x = np.zeros(W1.shape[1])
    h = np.zeros(W1.shape[2])
    o = np.zeros(N_OUT)
    for i in range(boards.shape[0]):
        evaluate_one(W1, b1, W2, b2, boards[i], x, h, o)
        out[i, :] = o


@njit(cache=True)
def invert(p, out):
    """The opponent's five probabilities from ``p`` (win <-> lose)."""
    w = p[0]
    wg = p[1]
    wbg = p[2]
    out[0] = 1.0 - w
    out[1] = p[3]
    out[2] = p[4]
    out[3] = wg
    out[4] = wbg


@njit(cache=True)
def money_equity(p):
    """Cubeless money equity of five probabilities."""
    return 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]


@njit(cache=True)
def best_move_1ply(W1, b1, W2, b2, board, d1, d2, moves, x, h, o, oi):
    """Index of the play maximising the mover's cubeless equity at 1-ply, and the count.

    ``moves`` is a ``int8[MAX_MOVES, 26]`` work buffer filled with the plays.
    """
    n = legal_moves_into(board, d1, d2, moves)
    if n == 1:
        return 0, 1
    best = -1e9
    bi = 0
    for i in range(n):
        fb = flip(moves[i])
        evaluate_one(W1, b1, W2, b2, fb, x, h, o)
        invert(o, oi)
        e = money_equity(oi)
        if e > best:
            best = e
            bi = i
    return bi, n


# -- TD(lambda) ---------------------------------------------------------------------------

@njit(cache=True)
def _perm_sign(player, k):
    """Player-0 output k of a position with ``player`` to act: (source output, sign, offset)."""
    if player == 0:
        return k, 1.0, 0.0
    if k == 0:
        return 0, -1.0, 1.0
    if k == 1:
        return 3, 1.0, 0.0
    if k == 2:
        return 4, 1.0, 0.0
    if k == 3:
        return 1, 1.0, 0.0
    return 2, 1.0, 0.0


@njit(cache=True, fastmath=True)
def _axpy(a, src, dst):
    for i in range(src.shape[0]):
        dst[i] += a * src[i]


@njit(cache=True)
def td_train(W1, b1, W2, b2, n_games, seed, alpha, lam, stats):
    """Self-play ``n_games`` greedy 1-ply games, updating the weights in place by TD(lambda).

    The value is kept from player 0's view (outputs of positions with player 1
    to act are inverted) so one trajectory and one eligibility trace per output
    serve both players (Sutton 1988; Tesauro 1992/1995).  ``stats`` (float64[4])
    accumulates games, plies, player-0 points, and mean |delta| of P(win).
    """
    np.random.seed(seed)
    I = W1.shape[1]
    H = W1.shape[2]
    eW1 = np.zeros((2, N_OUT, I, H))  # traces [net, output, ...]
    eb1 = np.zeros((2, N_OUT, H))
    eW2 = np.zeros((2, N_OUT, H, N_OUT))
    eb2 = np.zeros((2, N_OUT, N_OUT))
    x = np.zeros(I)
    h = np.zeros(H)
    o = np.zeros(N_OUT)
    oi = np.zeros(N_OUT)
    y_prev = np.zeros(N_OUT)
    y_new = np.zeros(N_OUT)
    delta = np.zeros(N_OUT)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    live = np.zeros(2, dtype=np.bool_)
    nz = np.zeros(I, dtype=np.int64)
    gh = np.zeros(H)
    for g in range(n_games):
        eW1[:] = 0.0
        eb1[:] = 0.0
        eW2[:] = 0.0
        eb2[:] = 0.0
        board = STARTING_BOARD.copy()
        player = 0
        live[0] = False
        live[1] = False
        plies_race = 0
        d1, d2 = opening_roll()
        first = True
        plies = 0
        while True:
            # value and gradient of the current (pre-roll) position, player-0 view
            net = 1 if is_race(board) else 0
            encode(board, x)
            forward(W1, b1, W2, b2, net, x, h, o)
            for k in range(N_OUT):
                src, sg, off = _perm_sign(player, k)
                y_prev[k] = off + sg * o[src]
            # decay traces (only nets whose trace is not negligible), add gradients
            if net == 1 and live[0] and plies_race > 20:
                live[0] = False  # lam**20 < 1e-3: the contact trace has faded
                eW1[0] = 0.0
                eb1[0] = 0.0
                eW2[0] = 0.0
                eb2[0] = 0.0
            live[net] = True
            if net == 1:
                plies_race += 1
            for m in range(2):
                if live[m]:
                    eW1[m] *= lam
                    eb1[m] *= lam
                    eW2[m] *= lam
                    eb2[m] *= lam
            nnz = 0
            for i in range(I):
                if x[i] != 0.0:
                    nz[nnz] = i
                    nnz += 1
            for k in range(N_OUT):
                src, sg, off = _perm_sign(player, k)
                go = sg * o[src] * (1.0 - o[src])
                for j in range(H):
                    eW2[net, k, j, src] += go * h[j]
                    gh[j] = go * W2[net, j, src] * h[j] * (1.0 - h[j])
                    eb1[net, k, j] += gh[j]
                eb2[net, k, src] += go
                for t in range(nnz):
                    i = nz[t]
                    xi = x[i]
                    for j in range(H):
                        eW1[net, k, i, j] += gh[j] * xi
            # move
            if not first:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            first = False
            bi, n = best_move_1ply(W1, b1, W2, b2, board, d1, d2, moves, x, h, o, oi)
            after = moves[bi].copy()
            plies += 1
            r = game_result(after)
            if r != 0:
                # outcome from player-0 view
                terminal_probs(r if player == 0 else -r, y_new)
            else:
                board = flip(after)
                player = 1 - player
                net2 = 1 if is_race(board) else 0
                encode(board, x)
                forward(W1, b1, W2, b2, net2, x, h, o)
                for k in range(N_OUT):
                    src, sg, off = _perm_sign(player, k)
                    y_new[k] = off + sg * o[src]
            for k in range(N_OUT):
                delta[k] = y_new[k] - y_prev[k]
            stats[3] += abs(delta[0])
            for m in range(2):
                if not live[m]:
                    continue
                for k in range(N_OUT):
                    a = alpha * delta[k]
                    if a == 0.0:
                        continue
                    _axpy(a, eW1[m, k].reshape(-1), W1[m].reshape(-1))
                    _axpy(a, eb1[m, k], b1[m])
                    _axpy(a, eW2[m, k].reshape(-1), W2[m].reshape(-1))
                    _axpy(a, eb2[m, k], b2[m])
            if r != 0:
                stats[0] += 1
                stats[1] += plies
                pts = r if player == 0 else -r
                stats[2] += pts
                break


def init_weights(hidden: int = 40, seed: int = 0):
    """Small random weights (uniform +-0.1) for both nets: (W1, b1, W2, b2)."""
    rng = np.random.default_rng(seed)
    W1 = rng.uniform(-0.1, 0.1, size=(2, N_INPUTS, hidden))
    b1 = np.zeros((2, hidden))
    W2 = rng.uniform(-0.1, 0.1, size=(2, hidden, N_OUT))
    b2 = np.zeros((2, N_OUT))
    return W1, b1, W2, b2


def save_weights(path, W1, b1, W2, b2, **meta) -> None:
    """Write weights (and JSON-able metadata as 0-d arrays) to an ``.npz``."""
    extra = {f"meta_{k}": np.asarray(v) for k, v in meta.items()}
    np.savez(path, W1=W1, b1=b1, W2=W2, b2=b2, **extra)


def pad_inputs(W1):
    """``W1[2, I, H]`` of a network saved with ``I`` = 202, 206 or 218 inputs (before the shot,
    the blockade or the timing features) widened to ``N_INPUTS`` with zero rows: the same
    outputs.  Other shapes are returned unchanged."""
    if W1.ndim == 3 and W1.shape[1] in (N_BASE_INPUTS, N_SHOT_INPUTS, N_ESC_INPUTS):
        W1 = np.concatenate([W1, np.zeros((W1.shape[0], N_INPUTS - W1.shape[1], W1.shape[2]))],
                            axis=1)
    return W1


#: the input counts a network can be trimmed to (:func:`trim_inputs`): raw, + shots, + blockade,
#: + timing inputs
INPUT_BLOCKS = (N_BASE_INPUTS, N_SHOT_INPUTS, N_ESC_INPUTS, N_INPUTS)


def trim_inputs(W1):
    """``W1[2, N_INPUTS, H]`` cut to the first :data:`INPUT_BLOCKS` count past which every row
    (of both nets) is zero: the same outputs, and the kernels, which size their input buffers
    from ``W1.shape[1]`` (:func:`encode` fills only that many), skip features a network does
    not weigh (a 218-input net pays nothing for the timing inputs)."""
    for n in INPUT_BLOCKS:
        if n >= W1.shape[1] or not np.any(W1[:, n:, :]):
            return np.ascontiguousarray(W1[:, :n, :]) if n < W1.shape[1] else W1
    return W1


def load_weights(path):
    """Read ``(W1, b1, W2, b2, meta)`` from an ``.npz`` without pickle; errors name the file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            W1, b1, W2, b2 = (np.ascontiguousarray(z[k], dtype=np.float64)
                              for k in ("W1", "b1", "W2", "b2"))
            meta = {k[5:]: z[k].item() for k in z.files if k.startswith("meta_")}
    except (OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{path}: not a playout network file ({exc})") from None
    W1 = pad_inputs(W1)
    if W1.ndim != 3 or W1.shape[1] != N_INPUTS or W2.ndim != 3 or W2.shape[2] != N_OUT:
        raise ValueError(f"{path}: weights have {W1.shape[1:2]} inputs / {W2.shape[2:]} outputs, "
                         f"expected {N_INPUTS} / {N_OUT}")
    S, H = W1.shape[0], W1.shape[2]
    if S not in (2, 3) or b1.shape != (S, H) or W2.shape != (S, H, N_OUT) or b2.shape != (S, N_OUT):
        raise ValueError(f"{path}: W1 {W1.shape}, b1 {b1.shape}, W2 {W2.shape}, b2 {b2.shape}: "
                         f"expected 2 or 3 slices (contact, race[, crashed]) of one hidden size")
    return W1, b1, W2, b2, meta


def combine_crashed(general, crashed, out, slot: int = 0) -> None:
    """Write ``out``: the contact and race slices of network file ``general`` plus slice ``slot``
    (default 0, the contact net a crashed specialist was trained as) of ``crashed`` as the third,
    crashed slice (:func:`playout.backgammon.classes.net_index`).  Both files load through
    :func:`load_weights` (older input counts padded); their hidden sizes must agree.  The
    metadata records both sources.  Errors: ``ValueError`` naming the file."""
    import json

    W1, b1, W2, b2, _ = load_weights(general)
    C1, c1, C2, c2, _ = load_weights(crashed)
    if not 0 <= slot < C1.shape[0]:
        raise ValueError(f"{crashed}: no slice {slot} (it has {C1.shape[0]})")
    if C1.shape[2] != W1.shape[2]:
        raise ValueError(f"{crashed}: {C1.shape[2]} hidden units, {general} has {W1.shape[2]}: "
                         f"the slices of one file share a hidden size")
    save_weights(out, np.concatenate([W1[:2], C1[slot:slot + 1]]),
                 np.concatenate([b1[:2], c1[slot:slot + 1]]),
                 np.concatenate([W2[:2], C2[slot:slot + 1]]),
                 np.concatenate([b2[:2], c2[slot:slot + 1]]),
                 kind="combined", sources=json.dumps({"contact": str(general), "race": str(general),
                                                      "crashed": f"{crashed}[{slot}]"}))


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "features.py", "classes.py"))
