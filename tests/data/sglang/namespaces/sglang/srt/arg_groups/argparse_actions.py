# ruff: noqa
import argparse


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag=None, nargs=0, const=True, default=False,
                 **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, const=const, default=default, **kwargs)
