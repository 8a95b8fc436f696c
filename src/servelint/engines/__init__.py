"""Serving engines: one package per engine behind ``base.Engine``, listed in ``registry``."""
