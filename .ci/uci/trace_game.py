"""A board replaying a trace nobody on the team wrote, with python-chess as the GUI asking
`eboardd uci` for one side's moves: every bestmove must be the move played in the recording.

    python3 trace_game.py TRACE [white|black] [speed]

TRACE.json (or TRACE.uci) beside the trace gives the game. The GUI's own
side's moves are sent in `position` as the recording plays them; the board replays its bytes
whatever it is shown. With speed above 1 the settle window is shortened to match.
"""

import json
import os
import sys
import time

import chess
import chess.engine

from common import Emulator, eboardd


def game_of(trace):
    """The game a trace records: TRACE.json (`start_fen`, `chess960`, `san`), or TRACE.uci
    (numbered lines of UCI moves from the standard start, as in ../shared/data/real-dgt)."""
    stem = trace.removesuffix(".trace")
    if os.path.exists(stem + ".json"):
        return json.load(open(stem + ".json"))
    board = chess.Board()
    san = []
    for token in open(stem + ".uci").read().split():
        if token.endswith(".") or token in ("*", "1-0", "0-1", "1/2-1/2"):
            continue
        move = chess.Move.from_uci(token)
        san.append(board.san(move))
        board.push(move)
    return {"start_fen": chess.STARTING_FEN, "chess960": False, "san": san}


def main():
    trace = sys.argv[1]
    side = chess.WHITE if (sys.argv[2] if len(sys.argv) > 2 else "white") == "white" else chess.BLACK
    speed = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    truth = game_of(trace)
    board = chess.Board(truth["start_fen"], chess960=truth["chess960"])
    moves = []
    for san in truth["san"]:
        m = board.parse_san(san)
        moves.append(m)
        board.push(m)
    board = chess.Board(truth["start_fen"], chess960=truth["chess960"])

    protocol = next(
        line.split(":", 1)[1].strip()
        for line in open(trace)
        if line.startswith("# protocol:")
    )
    started = time.monotonic()
    replay = Emulator(["--trace", trace, "--speed", str(speed)])
    # The protocol is given: a recording answers nothing, so it cannot be probed.
    engine = chess.engine.SimpleEngine.popen_uci(
        [eboardd(), "uci", "--device", replay.device, "--protocol", protocol], timeout=10
    )
    asked = 0
    waits = []
    try:
        # python-chess sets UCI_Chess960 itself for a Chess960 board.
        engine.configure({"SettleMs": max(20, round(250 / speed))})
        for i, m in enumerate(moves):
            if board.turn == side:
                asked_at = time.monotonic()
                result = engine.play(
                    board, chess.engine.Limit(white_clock=600, black_clock=600), game=trace
                )
                waits.append(time.monotonic() - asked_at)
                assert result.move == m, f"ply {i + 1}: bestmove {result.move}, played {m}"
                asked += 1
            board.push(m)
    finally:
        engine.quit()
        replay.close()
    print(
        f"{trace.rsplit('/', 1)[-1]} at {speed}x: {asked} bestmoves for "
        f"{'White' if side == chess.WHITE else 'Black'}, every one the move played "
        f"({len(moves)} plies, {time.monotonic() - started:.1f} s, longest wait {max(waits):.1f} s)"
    )


if __name__ == "__main__":
    main()
