"""python-chess plays a full game of Stockfish against `eboardd uci` on an emulated board.

The emulated hand plays White with moves of its own and carries out Stockfish's moves when
the board shows them (LEDs, clock text); python-chess is the GUI: it asks `eboardd uci`
for White's moves (each must be the move the hand played) and Stockfish for Black's.

    python3 stockfish_game.py [dgt|millennium] [seed]
"""

import sys
import time

import chess
import chess.engine

from common import Emulator, eboardd, find_tool

MAX_PLIES = 300


def main():
    protocol = sys.argv[1] if len(sys.argv) > 1 else "dgt"
    seed = sys.argv[2] if len(sys.argv) > 2 else "1"
    started = time.monotonic()
    board_emu = Emulator(["--protocol", protocol, "--side", "white", "--seed", seed, "--speed", "4"])
    human = chess.engine.SimpleEngine.popen_uci(
        [eboardd(), "uci", "--device", board_emu.device, "--protocol", protocol], timeout=10
    )
    stockfish = chess.engine.SimpleEngine.popen_uci(find_tool("stockfish"))
    assert human.id["name"].startswith("eboardd"), human.id
    board = chess.Board()
    clocks = chess.engine.Limit(white_clock=600, black_clock=600)
    game = object()
    pending = None  # Stockfish's move, shown on the board with the next `position`
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            if board.turn == chess.WHITE:
                result = human.play(board, clocks, game=game)
                assert result.move is not None, "no move from the board"
                if pending is not None:
                    carried = board_emu.expect("carried")
                    assert carried == pending, (carried, pending)
                    pending = None
                played = board_emu.expect("played")
                assert result.move.uci() == played, (result.move.uci(), played)
                human.ping()  # isready / readyok between moves
            else:
                # A Millennium board shows a move by its squares alone: a person reads
                # the promotion piece off the GUI's screen, which the emulated hand cannot
                # (it promotes to a queen). There the GUI keeps to queens. A node limit,
                # not a time limit, so that a seed always plays the same game.
                allowed = None
                if protocol == "millennium":
                    allowed = [m for m in board.legal_moves if m.promotion in (None, chess.QUEEN)]
                result = stockfish.play(board, chess.engine.Limit(nodes=20000), root_moves=allowed)
                pending = result.move.uci()
            board.push(result.move)
    finally:
        human.quit()
        stockfish.quit()
        board_emu.close()
    outcome = board.outcome(claim_draw=True)
    print(
        f"stockfish game on {protocol}: {board.ply()} plies, "
        f"{outcome.result() if outcome else 'unfinished'} "
        f"({outcome.termination.name if outcome else 'move limit'}), "
        f"{time.monotonic() - started:.1f} s"
    )
    print(chess.Board().variation_san(board.move_stack))


if __name__ == "__main__":
    main()
