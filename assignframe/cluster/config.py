"""Client settings the way Kafka's own tools take them (``--command-config client.properties``),
and the one place secrets are kept out of what is printed, written or logged.

Keys read (Java's names, and librdkafka's where Java has none):

* ``security.protocol``: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
* ``sasl.mechanism``: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
* ``sasl.jaas.config`` (``... username="u" password="p";``) or ``sasl.username`` /
  ``sasl.password``
* ``ssl.truststore.location`` / ``ssl.ca.location`` (PEM CA file), ``ssl.keystore.location`` /
  ``ssl.certificate.location`` (PEM certificate), ``ssl.key.location``, ``ssl.key.password``,
  ``ssl.endpoint.identification.algorithm`` (empty: no host name check)
* ``client.id``

Other keys (consumer tuning, Java-only stores) are listed once as ignored, by name only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError

__all__ = ["ClientConfig", "RedactingFilter", "read_client_config"]

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
#: keys whose values are secrets: never printed, whatever else happens
SECRET_KEYS = ("sasl.jaas.config", "sasl.password", "ssl.key.password",
               "ssl.keystore.password", "ssl.truststore.password")
_FILES = {
    "ssl.truststore.location": "ssl_cafile",
    "ssl.ca.location": "ssl_cafile",
    "ssl.keystore.location": "ssl_certfile",
    "ssl.certificate.location": "ssl_certfile",
    "ssl.key.location": "ssl_keyfile",
}
_USED = {"security.protocol", "sasl.mechanism", "sasl.jaas.config", "sasl.username",
         "sasl.password", "ssl.key.password", "ssl.endpoint.identification.algorithm",
         "client.id", "ssl.truststore.type", "ssl.keystore.type", *_FILES}
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')
MASK = "****"
#: secrets this long are masked wherever they stand as a word, shorter ones only in fields
_WORD_SECRET = 6
#: a field whose value is a secret, in the forms it is written (properties, JAAS, a repr)
_SECRET_FIELD = re.compile(
    r"""((?:password|passwd|secret|jaas[._]config|sasl_plain_password|ssl_password)['"]?"""
    r"""\s*[=:]\s*(['"]?))((?:[^'"\s;,}]|\\.)*)""", re.IGNORECASE)

#: bytes kafka-python's debug log dumps (a SASL exchange's ``auth_bytes=b'...'``, a frame's
#: ``Send: bytearray(b'...')``): they carry a password in no field of its own, so they are
#: masked whole whatever the password's length
_SECRET_BYTES = re.compile(r"""((?:auth_bytes=|bytearray\())b(['"])(?:\\.|(?!\2).)*\2""")


@dataclass(frozen=True)
class ClientConfig:
    """What the transport needs to connect, and every secret it was given (to mask them)."""

    settings: Mapping[str, Any] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    source: str = ""

    def kafka_python_settings(self) -> dict[str, Any]:
        return dict(self.settings)

    def redact(self, text: str) -> str:
        """``text`` with every secret masked as ``****``, by field, not by text: the value of a
        field that holds secrets (``password=...``, ``'sasl_plain_password': '...'``, a JAAS
        line) whatever it is, and a secret of 6 characters or more given in the config wherever
        it stands, inside other text too (kafka-python's debug log prints SASL bytes as
        ``b'\\x00user\\x00SECRET'``, where no word boundary sits before it). A short
        password (``p``) never masks other words' letters: fields only."""
        text = _SECRET_FIELD.sub(lambda m: m[1] + MASK, text)
        text = _SECRET_BYTES.sub(lambda m: m[1] + MASK, text)
        for secret in sorted(self.secrets, key=len, reverse=True):
            if len(secret) < _WORD_SECRET:
                continue  # 'p' as a word is no evidence of the password: fields only
            text = text.replace(secret, MASK)
        return text

    def describe(self) -> dict[str, Any]:
        """The settings as they may be shown: secrets masked."""
        return {key: (MASK if key == "sasl_plain_password" or key == "ssl_password" else value)
                for key, value in self.settings.items()}


def read_client_config(path: str | None) -> ClientConfig:
    """Read ``client.properties`` (None: connect in plain text with defaults).

    :raises InputError: unreadable file, unknown protocol or mechanism, a JKS store, a missing
        user name or password (the message names the key, never its value)
    """
    if path is None:
        return ClientConfig()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:  # the reason (not found, a directory, no permission), no traceback
        raise InputError(f"cannot read the client config: {exc.strerror or exc}", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"the client config is not UTF-8 text (byte {exc.start})", path) from None
    properties = _properties(text.splitlines(), path)
    secrets = _secrets(properties)
    try:
        settings = _settings(properties, path)
    except InputError as exc:
        raise InputError(ClientConfig(secrets=secrets).redact(str(exc))) from None
    ignored = tuple(sorted(k for k in properties if k not in _USED))
    return ClientConfig(settings, secrets, ignored, path)


def _properties(lines: Iterable[str], path: str) -> dict[str, str]:
    """Java ``.properties``: ``key=value`` or ``key: value``, ``#``/``!`` comments, ``\\``
    continuation lines."""
    found: dict[str, str] = {}
    pending = ""
    for number, raw in enumerate(lines, start=1):
        line = pending + raw.strip()
        if line.endswith("\\"):
            pending = line[:-1]
            continue
        pending = ""
        if not line or line[0] in "#!":
            continue
        match = re.match(r"([^=:\s]+)\s*[=:\s]\s*(.*)", line)
        if match is None:
            raise InputError(f"line {number} is not key=value", path)
        found[match[1]] = match[2]
    return found


def _secrets(properties: Mapping[str, str]) -> tuple[str, ...]:
    secrets = [properties[k] for k in SECRET_KEYS if properties.get(k)]
    jaas = properties.get("sasl.jaas.config", "")
    secrets += [value for _, value in _JAAS_OPTION.findall(jaas) if value]
    return tuple(s for s in secrets if len(s) >= 1)


def _settings(properties: Mapping[str, str], path: str) -> dict[str, Any]:
    protocol = properties.get("security.protocol", "PLAINTEXT").upper()
    if protocol not in SECURITY_PROTOCOLS:
        raise InputError(f"security.protocol {protocol} is not one of "
                         f"{', '.join(SECURITY_PROTOCOLS)}", path)
    settings: dict[str, Any] = {"security_protocol": protocol}
    if properties.get("client.id"):
        settings["client_id"] = properties["client.id"]
    if protocol.startswith("SASL"):
        settings.update(_sasl(properties, path))
    if protocol.endswith("SSL"):
        settings.update(_ssl(properties, path))
    return settings


def _sasl(properties: Mapping[str, str], path: str) -> dict[str, Any]:
    mechanism = properties.get("sasl.mechanism", "GSSAPI").upper()
    if mechanism not in SASL_MECHANISMS:
        raise InputError(f"sasl.mechanism {mechanism} is not supported here (use one of "
                         f"{', '.join(SASL_MECHANISMS)})", path)
    options = dict(_JAAS_OPTION.findall(properties.get("sasl.jaas.config", "")))
    username = properties.get("sasl.username") or options.get("username")
    password = properties.get("sasl.password") or options.get("password")
    if not username or not password:
        raise InputError(f"sasl.mechanism {mechanism} needs a user name and password "
                         "(sasl.jaas.config, or sasl.username and sasl.password)", path)
    return {"sasl_mechanism": mechanism, "sasl_plain_username": username,
            "sasl_plain_password": password}


def _ssl(properties: Mapping[str, str], path: str) -> dict[str, Any]:
    for key in ("ssl.truststore.type", "ssl.keystore.type"):
        if properties.get(key, "PEM").upper() != "PEM":
            raise InputError(f"{key} {properties[key]}: {_CONVERT}", path)
    settings: dict[str, Any] = {}
    for key, setting in _FILES.items():
        if properties.get(key):
            location = Path(properties[key])
            if not location.is_file():
                raise InputError(f"{key} names a file that does not exist", path)
            _pem_or_refused(key, location, path)
            settings[setting] = str(location)
    if properties.get("ssl.key.password"):
        settings["ssl_password"] = properties["ssl.key.password"]
    if properties.get("ssl.endpoint.identification.algorithm", "https") == "":
        settings["ssl_check_hostname"] = False
    return settings


#: how the stores Java reads begin, when they are not PEM text
_STORE_MAGIC = ((b"\xfe\xed\xfe\xed", "a JKS store"), (b"\xce\xce\xce\xce", "a JCEKS store"),
                (b"\x30", "a PKCS12 (or DER) store"))
_CONVERT = ("only PEM files can be read here; convert it, e.g. the CA of a trust store: "
            "keytool -exportcert -rfc -keystore STORE.jks -alias ALIAS > ca.pem "
            "(docs/cluster.md)")


def _pem_or_refused(key: str, location: Path, path: str) -> None:
    """A store given without ``ssl.*.type`` is read by its first bytes: a JKS or PKCS12 store
    is refused with the way to convert it, before any connection."""
    try:
        with open(location, "rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise InputError(f"{key} cannot be read: {exc.strerror or exc}", path) from None
    for magic, what in _STORE_MAGIC:
        if head.startswith(magic):
            raise InputError(f"{key} is {what}, not PEM: {_CONVERT}", path)


class RedactingFilter(logging.Filter):
    """Masks the secrets of a :class:`ClientConfig` in every log record it sees (kafka-python
    logs connection details; a password must never reach a log)."""

    def __init__(self, config: ClientConfig) -> None:
        super().__init__()
        self.config = config

    def filter(self, record: logging.LogRecord) -> bool:
        if self.config.secrets:
            record.msg = self.config.redact(record.getMessage())
            record.args = None
        return True
