"""Shared helpers for the UCI client checks: start the emulated board and read what it says."""

import os
import queue
import shutil
import subprocess
import sys
import threading


def find_tool(name):
    """A program on PATH, or in /usr/games where Debian puts chess programs."""
    found = shutil.which(name) or shutil.which(name, path="/usr/games")
    if not found:
        sys.exit(f"{name} is not installed (Debian package {name})")
    return found


def eboardd():
    """The eboardd binary to test (EBOARDD, else target/debug/eboardd)."""
    path = os.environ.get("EBOARDD") or os.path.join(
        os.path.dirname(__file__), "..", "..", "target", "debug", "eboardd"
    )
    path = os.path.abspath(path)
    if not os.access(path, os.X_OK):
        sys.exit(f"no eboardd binary at {path} (cargo build first, or set EBOARDD)")
    return path


class Emulator:
    """`eboardd emulate ...`: an emulated board on a pty; its stdout lines on a queue."""

    def __init__(self, args):
        self.proc = subprocess.Popen(
            [eboardd(), "emulate", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self.next(10)
        if not first.startswith("device "):
            sys.exit(f"the emulator said {first!r} instead of its device")
        self.device = first.split(" ", 1)[1]

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def next(self, timeout):
        """The emulator's next line within `timeout` seconds."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the emulator said nothing for {timeout} s")
        if line is None:
            raise AssertionError("the emulator ended")
        return line

    def expect(self, word, timeout=30):
        """The next `word ...` line's argument, skipping other lines."""
        while True:
            line = self.next(timeout)
            if line.startswith(word + " "):
                return line.split(" ", 1)[1]

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self):
        """Ends the emulator as a user would: it runs until signalled."""
        try:
            self.proc.stdin.close()
            self.proc.terminate()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()
