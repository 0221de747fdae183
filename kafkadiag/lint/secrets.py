"""Which keys hold credentials, and whether a committed value is a literal credential.

Sensitive values are masked everywhere kafkadiag writes (every output format, diffs, fact tables);
the rule SEC001 flags the ones committed in plain text rather than as a placeholder resolved at
run time (``${env:...}`` config providers, Spring ``${...}``, templating).
"""

from __future__ import annotations

import re

SENSITIVE_KEYS = {
    "sasl.jaas.config", "basic.auth.user.info", "schema.registry.basic.auth.user.info", "sasl.password",
    "sasl.oauthbearer.client.secret", "sasl.oauthbearer.config", "ssl.key.password", "ssl.keystore.password",
    "ssl.truststore.password", "ssl.key.pem", "ssl.keystore.key", "ssl_key", "sasl.login.password",
}
_SENSITIVE_SUFFIXES = ("password", "passwords", "jaas.config", "user.info", "secret", "secret.key", "api.key.secret")
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\{\{[^}]*\}\}|\$\([^)]*\)|^\$[A-Za-z_][A-Za-z0-9_]*$|^<[^>]*>$|^\[hidden\]$|^\*+$")
_JAAS_SECRET = re.compile(
    r"\b(password|clientSecret|client_secret|secret|token)\s*=\s*(\"(?P<q>(?:[^\"\\]|\\.)*)\"|(?P<u>[^\s;\"]+))",
    re.IGNORECASE,
)


def is_sensitive(*keys: str) -> bool:
    """Any of the names (raw or normalised) is a credential-bearing key."""
    for key in keys:
        k = key.lower().replace("-", ".").replace("_", ".")
        plain = key.lower()
        if plain in SENSITIVE_KEYS or k in SENSITIVE_KEYS:
            return True
        if any(k.endswith(suffix) or plain.endswith(suffix) for suffix in _SENSITIVE_SUFFIXES):
            return True
    return False


def is_placeholder(value: str) -> bool:
    """A value resolved at run time rather than a literal."""
    return bool(_PLACEHOLDER.search(value.strip()))


def is_plaintext_secret(key: str, value: str) -> bool:
    """A sensitive key whose committed value is a literal credential.

    JAAS configs count only when one of their options (password, clientSecret...) is a literal;
    a JAAS config naming a keytab or an unsecured token holds no secret.
    """
    text = value.strip()
    if not text or text.lower() == "null":
        return False
    if key.lower().endswith("jaas.config"):
        for m in _JAAS_SECRET.finditer(text):
            literal = m.group("q") if m.group("q") is not None else m.group("u")
            if literal and not is_placeholder(literal):
                return True
        return False
    return not is_placeholder(text)


MASK = "********"
#: ``<sensitive key> = value`` / ``: value`` inside a line of text (a log line, a pasted config).
_KEY_VALUE_SECRET = re.compile(
    r"(?P<key>\b[A-Za-z0-9_.\-]*(?:password|passwd|jaas\.config|user\.info|secret)[A-Za-z0-9_.\-]*)"
    r"(?P<sep>\s*[=:]\s*)(?P<val>\"[^\"]*\"|'[^']*'|\[[^\]]*\]|[^\s,;\"'\]\}]+)",
    re.IGNORECASE,
)
#: A JAAS option (``password="…"``, ``clientSecret=…``) on its own, not the tail of a dotted config key.
_OPTION_SECRET = re.compile(
    r"(?<![\w.])(?:password|clientSecret|client_secret|secret|token)\s*=\s*(?:\"(?P<q>(?:[^\"\\]|\\.)*)\"|(?P<u>[^\s;\",)\]}]+))",
    re.IGNORECASE,
)
_SHOWN_AS_IS = re.compile(r"^[\"']?(\[hidden\]|null|\*+|<[^>]*>|\$\{[^}]*\})?[\"']?$", re.IGNORECASE)


#: Every match of the two patterns above contains one of these (lower-cased): an ASCII text without
#: any is returned as it is without running them (a report masks every message and evidence line).
#: Other text goes through the patterns (their case-insensitive match knows more letters than ASCII).
_SECRET_WORDS = ("pass", "jaas", "user.info", "secret", "token")


def mask_secrets(text: str) -> str:
    """A line of evidence with credential values replaced by the mask (key kept, so it stays readable)."""
    if text.isascii():
        folded = text.lower()
        if not any(word in folded for word in _SECRET_WORDS):
            return text
    if not _KEY_VALUE_SECRET.search(text) and not _OPTION_SECRET.search(text):
        return text

    def key_value(m: re.Match) -> str:
        return m.group(0) if _SHOWN_AS_IS.match(m.group("val")) else f"{m.group('key')}{m.group('sep')}{MASK}"

    def jaas(m: re.Match) -> str:
        value = m.group("q") if m.group("q") is not None else m.group("u")
        if value is None or _SHOWN_AS_IS.match(value) or value == MASK:
            return m.group(0)
        return m.group(0).replace(value, MASK)

    return _OPTION_SECRET.sub(jaas, _KEY_VALUE_SECRET.sub(key_value, text))
