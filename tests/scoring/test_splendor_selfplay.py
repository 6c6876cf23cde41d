"""200 seeded random Splendor Duel games never break an invariant.

Each game plays uniformly random legal actions (a refill draws the bag in a random order) from a
seeded ``numpy.random.Generator``. After every action: the 25 tokens are conserved (board + bag +
players), there are 3 privileges in total, the reserve holds at most 3 cards. At every turn end:
the player who just moved holds at most 10 tokens, and the game is over exactly when that player
meets a victory condition.
"""

from __future__ import annotations

import numpy as np

from scoring.splendor_duel.final import tally
from scoring.splendor_duel.game import Refill, State, apply, legal_actions, new_game, random_refill

SUPPLY = (4, 4, 4, 4, 4, 2, 3)
GAMES = 200
MAX_ACTIONS = 2000


def _check_turn_end(before: State, after: State) -> None:
    mover = before.current
    player = after.players[mover]
    assert player.tokens.total() <= 10
    met = tally(player.cards, player.royals).victory
    if met:
        assert after.phase == "over" and after.winner == mover and after.victory == met
    else:
        assert after.phase == "main" and after.winner is None


def _play(seed: int) -> tuple[State, int]:
    rng = np.random.default_rng(seed)
    state = new_game(rng)
    actions = 0
    while state.phase != "over" and actions < MAX_ACTIONS:
        options = list(legal_actions(state))
        assert options, f"seed {seed}: no legal action in phase {state.phase}"
        action = options[int(rng.integers(len(options)))]
        if isinstance(action, Refill):
            action = random_refill(state, rng)
        after = apply(state, action)  # apply validates: an illegal choice would raise
        actions += 1
        assert after.token_total().counts == SUPPLY
        assert after.privilege_total() == 3
        assert all(0 <= p.privileges <= 3 and len(p.reserved) <= 3 for p in after.players)
        assert after.board.counts() <= after.token_total()
        if after.turn != state.turn:
            _check_turn_end(state, after)
        else:
            assert after.phase != "over"
        state = after
    return state, actions


def test_random_self_play_keeps_every_invariant() -> None:
    finished = 0
    reasons: set[str] = set()
    for seed in range(GAMES):
        state, _ = _play(seed)
        if state.phase == "over":
            finished += 1
            reasons.update(v.split(":")[0] for v in state.victory)
    assert finished == GAMES
    assert reasons >= {"points", "colour"}  # the games reach more than one kind of victory
