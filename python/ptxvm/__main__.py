"""`python -m ptxvm ...` runs the ptxvm command line installed with this package."""

import os
import shutil
import sys
import sysconfig


def main() -> None:
    exe = os.path.join(sysconfig.get_path("scripts"), "ptxvm")
    if not os.path.isfile(exe):
        exe = shutil.which("ptxvm") or exe
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
