"""decode/ reads pcaps, reassembles TCP, matches requests to responses and builds timelines; every
byte of a Kafka frame is read by assignframe_codec. No struct, no unpacking, no varints here."""

from __future__ import annotations

import ast
from pathlib import Path

import assignframe.decode

DECODE = Path(assignframe.decode.__file__).parent
BYTE_LEVEL_CALLS = {"unpack", "unpack_from", "iter_unpack", "pack", "pack_into", "from_bytes",
                    "to_bytes"}
#: (module, what): the only exceptions, each with its reason
ALLOWED = {
    # dpkt raises struct.error on packets it cannot parse: caught, never used to parse
    ("pcap.py", "import struct"),
    # the user-data-by-protocol-name reading, which the lead moves into the sticky plugin
    ("consumer.py", "from_bytes"),
}


def _byte_level(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "struct" for a in node.names):
            found.add("import struct")
        elif isinstance(node, ast.ImportFrom) and node.module == "struct":
            found.add("import struct")
        elif isinstance(node, ast.Attribute) and node.attr in BYTE_LEVEL_CALLS:
            found.add(node.attr)
        names = [getattr(node, "name", None), getattr(node, "id", None),
                 getattr(node, "attr", None)]
        found.update("varint" for name in names if name and "varint" in name.lower())
    return found


def test_no_module_under_decode_parses_bytes_itself():
    offenders = {}
    for path in sorted(DECODE.glob("*.py")):
        found = {what for what in _byte_level(ast.parse(path.read_text()))
                 if (path.name, what) not in ALLOWED}
        if found:
            offenders[path.name] = sorted(found)
    assert offenders == {}


def test_the_check_sees_what_it_forbids():
    source = "import struct\nx = struct.unpack('>i', b)\ndef read_varint(r): ...\n"
    assert _byte_level(ast.parse(source)) == {"import struct", "unpack", "varint"}
    assert not (DECODE / "wire.py").exists()  # decode's own primitive reader is gone
