from pydantic import ConfigDict
from pydantic.dataclasses import dataclass


def config(cls=None, *, config=None):
    merged = ConfigDict(extra="forbid")

    def decorator(cls):
        return dataclass(cls, config=merged)

    return decorator if cls is None else decorator(cls)
