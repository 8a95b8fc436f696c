from vllm.entrypoints.openai.cli_args import make_arg_parser


class ServeSubcommand:
    name = "serve"

    def subparser_init(self, subparsers):
        serve_parser = subparsers.add_parser(self.name, usage="vllm serve [model_tag]")
        serve_parser = make_arg_parser(serve_parser)
        return serve_parser
