#!/usr/bin/env python3
# Idle cost of `eboardd run`: N DGT boards on ptys (no traffic but the keep-alive), a
# private dbus-daemon; prints CPU over 20 s and resident memory.
# Usage: python3 benches/daemon-idle.py N target/release/eboardd
import os, pty, subprocess, sys, time, tempfile, signal
n = int(sys.argv[1])
binary = sys.argv[2]
work = tempfile.mkdtemp()
bus = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1", "--nopidfile"], capture_output=True, text=True).stdout.split()
addr, buspid = bus[0], int(bus[1])
masters = []
cfg = open(os.path.join(work, "config.toml"), "w")
for i in range(n):
    m, s = pty.openpty()
    name = os.ttyname(s)
    os.close(s)
    masters.append(m)
    cfg.write(f'[[board]]\ndevice = "{name}"\nprotocol = "dgt"\n')
cfg.close()
p = subprocess.Popen([binary, "run", "--bus-address", addr, "--config", os.path.join(work, "config.toml"), "--state-dir", os.path.join(work, "state")], stderr=subprocess.DEVNULL)
def drain():
    for m in masters:
        try:
            os.set_blocking(m, False)
            os.read(m, 4096)
        except OSError:
            pass
def cpu():
    f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
time.sleep(3); drain()
c0 = cpu(); t0 = time.time()
for _ in range(20):
    time.sleep(1); drain()
c1 = cpu(); t1 = time.time()
rss = [l for l in open(f"/proc/{p.pid}/status") if l.startswith(("VmRSS", "VmHWM"))]
hz = os.sysconf("SC_CLK_TCK")
print(f"boards={n} cpu={100.0*(c1-c0)/hz/(t1-t0):.2f}% " + " ".join(l.split()[0]+l.split()[1]+"kB" for l in rss))
p.send_signal(signal.SIGTERM); p.wait(timeout=10)
os.kill(buspid, signal.SIGTERM)
