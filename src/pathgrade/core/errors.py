"""Errors that name where bad input came from.

Every error pathgrade raises for bad input is an :class:`InputError`: it carries the
file, the 1-based line, the field and a one-line message, so the command line can print
``cases.jsonl:7: field 'reference[1].tool': expected a string, got 3`` and exit 2. Input that
is accepted but spelled the old way is a :class:`DeprecatedNameWarning`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Where a value came from: a file, a 1-based line (None for a whole file), a field path."""

    file: str | None = None
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts)


class InputError(ValueError):
    """Bad input: malformed data, a missing or mistyped field, an inconsistent file.

    ``str(error)`` is one line: ``<file>:<line>: field '<field>': <message>``.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = " ".join(message.split())  # always one line
        self.location = Location(file=file, line=line, field=field)
        where = str(self.location)
        super().__init__(f"{where}: {self.message}" if where else self.message)

    @property
    def file(self) -> str | None:
        return self.location.file

    @property
    def line(self) -> int | None:
        return self.location.line

    @property
    def field(self) -> str | None:
        return self.location.field

    def at(self, *, file: str | None = None, line: int | None = None) -> InputError:
        """Return the same error with the file and line filled in where they were unknown."""
        return InputError(
            self.message,
            file=self.location.file or file,
            line=self.location.line or line,
            field=self.location.field,
        )


class ConfigError(InputError):
    """A bad configuration value (TOML file or keyword argument)."""


class DeprecatedNameWarning(FutureWarning):
    """A name given as input (a gates file, ``--metric``, a catalogue lookup) is an old
    spelling of a metric that has one name now (``usage.latency_ms`` is ``latency_ms``): it is
    accepted and read as that metric, with this one-line note.

    A :class:`FutureWarning`, so that it is shown by default to the people who wrote the name
    (a :class:`DeprecationWarning` raised inside pathgrade is hidden outside ``__main__``);
    the command line prints it as ``pathgrade: note: ...`` on stderr.
    """
