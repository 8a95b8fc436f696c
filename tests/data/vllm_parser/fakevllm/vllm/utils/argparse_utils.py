import json
import re
from argparse import ArgumentParser, BooleanOptionalAction


def human_readable_int(value):
    return int(value)


class EnableDisableAction(BooleanOptionalAction):
    """Pairs --enable-x with --disable-x."""


class FlexibleArgumentParser(ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", BooleanOptionalAction, EnableDisableAction)

    def parse_args(self, args=None, namespace=None):
        if args and args[0] == "serve":
            for i, arg in enumerate(args):
                if re.match(r"^--model(=.+|$)", arg):
                    model_tag = args[i + 1]
                    args = ["serve", model_tag, *args[1:i], *args[i + 2:]]
                    break
        if "--config" in args:
            args = self._pull_args_from_config(args)
        pattern = re.compile(r"(?<=--)[^\.]*")
        processed_args = []
        for i, arg in enumerate(args):
            if arg.startswith("--"):
                processed_args.append(pattern.sub(lambda m: m.group(0).replace("_", "-"), arg))
            elif arg.startswith("-O") and arg != "-O":
                processed_args += ["--optimization-level", arg[2:]]
            elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1"}:
                processed_args.append("--optimization-level")
            else:
                processed_args.append(arg)

        def create_nested_dict(keys, value):
            return value

        for i, processed_arg in enumerate(processed_args):
            if processed_arg.startswith("-") and "." in processed_arg:
                if processed_arg.endswith("+"):
                    pass
                value_str = processed_args[i + 1]
                try:
                    processed_args[i + 1] = json.loads(value_str)
                except ValueError:
                    processed_args[i + 1] = human_readable_int(value_str)
        return super().parse_args(processed_args, namespace)

    def _pull_args_from_config(self, args):
        return args
