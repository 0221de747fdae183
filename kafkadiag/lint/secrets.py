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
_SENSITIVE_SUFFIXES = ("password", "jaas.config", "user.info", "secret", "secret.key", "api.key.secret")
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
