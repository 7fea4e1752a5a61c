# Test support for the conformance race group: exchanges a directory and a symlink with
# renameat2(RENAME_EXCHANGE), as fast as it can, until a line arrives on stdin. It always stops after an
# even number of exchanges, so the directory is back under its own name, and prints how many it made.
import ctypes
import os
import select
import sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])


def exchange():
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


print("ready", flush=True)
count = 0
while True:
    exchange()
    count += 1
    if count % 128 == 0 and select.select([sys.stdin], [], [], 0)[0]:
        break
if count % 2:
    exchange()
    count += 1
print(count, flush=True)
