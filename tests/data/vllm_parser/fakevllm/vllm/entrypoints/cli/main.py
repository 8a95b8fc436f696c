import sys


def main():
    if "--omni" in sys.argv:
        raise SystemExit(1)
