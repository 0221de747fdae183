"""``mask_secrets`` skips its patterns on text that cannot match them: the result must never change."""

from __future__ import annotations

import random
import string

from kafkadiag.lint import secrets


def _full(text: str) -> str:
    """The masking with the patterns always run (the behaviour the shortcut must keep)."""
    saved = secrets._SECRET_WORDS
    try:
        secrets._SECRET_WORDS = ("",)  # every text "contains" the empty word
        return secrets.mask_secrets(text)
    finally:
        secrets._SECRET_WORDS = saved


def test_the_shortcut_never_changes_the_result() -> None:
    rnd = random.Random(4)
    pieces = ["password", "PassWD", "sasl.jaas.config", "basic.auth.user.info", "clientSecret", "TOKEN", "secret",
              "=", ": ", '"', "'", " ", ";", "hunter2", "[hidden]", "${env:X}", "ſecret", "user.ınfo", "orders-7",
              *string.ascii_letters[:10]]
    for _ in range(5000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 12)))
        assert secrets.mask_secrets(text) == _full(text), text


def test_secrets_are_still_masked() -> None:
    assert secrets.mask_secrets('sasl.jaas.config=... password="hunter2";') != 'sasl.jaas.config=... password="hunter2";'
    assert "hunter2" not in secrets.mask_secrets("ssl.keystore.PASSWORD: hunter2")
    assert secrets.mask_secrets("Producer 7 wrote to orders-3 at epoch 5") == "Producer 7 wrote to orders-3 at epoch 5"
