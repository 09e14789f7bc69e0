"""JUnit XML for CI systems: one test suite, one test case per gate (failures carry messages).

Written with :mod:`xml.etree.ElementTree` (escaping handled there). The schema is the common
subset that Jenkins, GitLab and GitHub test reporters read: ``<testsuites>`` with one
``<testsuite name tests failures errors skipped>`` and ``<testcase classname name>`` elements, a
``<failure message type>`` child for each failed gate. Suite ``properties`` (e.g. a
``pathgrade.warning``) come first in the suite, as ``<properties><property name value/>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pathgrade.core.errors import InputError

__all__ = ["JUnitCase", "junit_xml", "write_junit"]


@dataclass(frozen=True)
class JUnitCase:
    """One test case: ``failure`` is the failure message, ``None`` when it passed."""

    name: str
    classname: str
    failure: str | None = None
    output: str = ""


def junit_xml(
    suite: str, cases: Sequence[JUnitCase], properties: Mapping[str, str] | None = None
) -> bytes:
    """The JUnit XML document (UTF-8, with declaration)."""
    failures = sum(1 for c in cases if c.failure is not None)
    root = ET.Element("testsuites", name=suite, tests=str(len(cases)), failures=str(failures))
    element = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(cases)),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    if properties:
        table = ET.SubElement(element, "properties")
        for name, value in properties.items():
            ET.SubElement(table, "property", name=name, value=value)
    for case in cases:
        node = ET.SubElement(element, "testcase", classname=case.classname, name=case.name)
        if case.failure is not None:
            failure = ET.SubElement(node, "failure", message=case.failure, type="GateFailure")
            failure.text = case.failure
        if case.output:
            ET.SubElement(node, "system-out").text = case.output
    ET.indent(root)
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body + b"\n"


def write_junit(
    path: str | Path,
    suite: str,
    cases: Sequence[JUnitCase],
    properties: Mapping[str, str] | None = None,
) -> None:
    """Write the JUnit XML file; an unwritable path is an :class:`InputError`."""
    try:
        Path(path).write_bytes(junit_xml(suite, cases, properties))
    except OSError as error:
        raise InputError(f"cannot write JUnit file: {error.strerror}", file=str(path)) from None
