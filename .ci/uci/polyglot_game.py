"""polyglot uses `eboardd uci` as its UCI engine: an xboard `go` is answered with the move made
on the board, and the opponent's moves sent to polyglot are carried out on the board.

    python3 polyglot_game.py [dgt|millennium] [moves]
"""

import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time

import chess

from common import Emulator, eboardd, find_tool


class Xboard:
    """polyglot spoken to as an xboard GUI does."""

    def __init__(self, ini):
        self.proc = subprocess.Popen(
            [find_tool("polyglot"), ini],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, predicate, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"polyglot did not say it within {timeout} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError("polyglot ended")
            if predicate(line):
                return line


def main():
    protocol = sys.argv[1] if len(sys.argv) > 1 else "dgt"
    full_moves = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    started = time.monotonic()
    board_emu = Emulator(["--protocol", protocol, "--side", "white", "--seed", "5", "--speed", "4"])
    workdir = tempfile.mkdtemp(prefix="eboardd-polyglot-")
    ini = os.path.join(workdir, "eboardd.ini")
    with open(ini, "w") as f:
        f.write(
            "[PolyGlot]\n"
            f"EngineCommand = {eboardd()} uci --device {board_emu.device} --protocol {protocol}\n"
            f"EngineDir = {workdir}\n"
            "Book = false\n"
            "Log = false\n"
            "Resign = false\n"
            "[Engine]\n"
        )
    xb = Xboard(ini)
    rng = random.Random(7)
    board = chess.Board()
    try:
        xb.send("xboard")
        xb.send("protover 2")
        features = xb.wait(lambda l: l.startswith("feature") and "done=1" in l)
        usermove = "usermove=1" in features
        xb.send("new")
        xb.send("level 0 30 0")
        xb.send("ping 1")
        xb.wait(lambda l: l == "pong 1")
        xb.send("go")
        for n in range(full_moves):
            answer = xb.wait(lambda l: l.startswith("move "), timeout=60)
            move = answer.split()[1]
            played = board_emu.expect("played")
            assert move == played, (move, played)
            board.push_uci(move)
            reply = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
            board.push(reply)
            xb.send(("usermove " if usermove else "") + reply.uci())
            carried = board_emu.expect("carried", timeout=60)
            assert carried == reply.uci(), (carried, reply.uci())
        answer = xb.wait(lambda l: l.startswith("move "), timeout=60)
        played = board_emu.expect("played")
        assert answer.split()[1] == played, (answer, played)
        board.push_uci(played)
        xb.send("quit")
        xb.proc.wait(timeout=10)
    finally:
        if xb.proc.poll() is None:
            xb.proc.kill()
        board_emu.close()
    print(
        f"polyglot on {protocol}: {board.ply()} plies, every xboard move the move made on "
        f"the board, {time.monotonic() - started:.1f} s"
    )
    print(chess.Board().variation_san(board.move_stack))


if __name__ == "__main__":
    main()
