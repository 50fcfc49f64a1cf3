"""One small registry type for presets (runtimes today; models and hardware can share it).

Dict-like (``REG[name]``, ``name in REG``, iteration in insertion order), lazily built entries
(a loader runs on first access and is cached) and one-line errors that name the valid choices.
"""
from __future__ import annotations

from typing import Callable, Generic, Iterator, TypeVar

from infersim.errors import InferSimError, short_repr

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str):
        self.kind = kind
        self._loaders: dict[str, Callable[[], T]] = {}
        self._cache: dict[str, T] = {}

    def register(self, name: str, loader: Callable[[], T] | T) -> None:
        if name in self._loaders:
            raise InferSimError(f"duplicate {self.kind} {short_repr(name)}")
        self._loaders[name] = loader if callable(loader) else (lambda v=loader: v)

    def get(self, name: str) -> T:
        if name not in self._loaders:
            raise InferSimError(f"unknown {self.kind} {short_repr(name)}; valid: {', '.join(self._loaders)}")
        if name not in self._cache:
            self._cache[name] = self._loaders[name]()
        return self._cache[name]

    def names(self) -> list[str]:
        return list(self._loaders)

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)

    def items(self):
        return [(n, self.get(n)) for n in self._loaders]

    def values(self):
        return [self.get(n) for n in self._loaders]

    def keys(self):
        return self.names()
